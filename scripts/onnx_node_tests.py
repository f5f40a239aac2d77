#!/usr/bin/python3
"""ONNX's own node test cases for the indexing family, run through the strix tool.

    scripts/onnx_node_tests.py STRIX_EXE [--backend cpu|vulkan] [--filter TEXT] [--keep DIR]
    scripts/onnx_node_tests.py STRIX_EXE --stored DIR [--backend ...] [--filter ...] [--keep ...]

The cases are not stored here: they are generated at run time by the test case
generators that ship with python3-onnx (onnx.backend.test.case.node), for the
operators Gather, GatherElements, GatherND, Concat, Split, Pad, Scatter (the
deprecated one), ScatterElements, ScatterND, Slice and Tile. Every case the generators hand
to `expect(node, inputs, outputs, name)` is captured, mapped to one strix
command (Concat -> join, Scatter/ScatterElements -> scatter, ...), run on .npy
files, and each output is compared with ONNX's expected array: same element
type, same shape, same bits.

With --stored DIR, the cases are read from DIR instead (test/vectors/types/onnx:
what ONNX 1.23's reference implementation computes for bfloat16, bool and the
float8 types, made by scripts/type_vectors.py): each case is a directory holding
node.pb (a serialized NodeProto), in<k>.npy and out<k>.npy (raw bits: <u2 for
bfloat16, |u1 for the float8 types, |b1 for bool), types.txt (the element type
of each input, then of each output) and agree.txt (whether onnxruntime agreed).
The node is mapped to a command as the generators' cases are, with --as for the
types NumPy has no name for, and each output must have the descr strix writes
for its type (<V2, <V1, <f1, |b1), the shape and the bytes of out<k>.npy.

A case that cannot be expressed with the tool's command line counts as a
failure and says why; nothing is skipped. One line per case, then
`N passed, N failed`. Exit status 0 when all pass, 1 on any failure, 2 on bad
arguments or when the generators (or the stored cases' NodeProto) cannot be
loaded.
"""

import argparse
import ast
import importlib
import os
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

# the generator modules, one per operator of interest, and the op types they may produce
GENERATOR_MODULES = ["gather", "gatherelements", "gathernd", "concat", "split", "pad",
                     "scatter", "scatterelements", "scatternd", "slice", "tile"]
ELEMENT_TYPES = {"float64", "float32", "float16", "int64", "int32", "int16", "int8",
                 "uint64", "uint32", "uint16", "uint8", "bool"}
# the types NumPy has no name for: their files hold the bits as unsigned integers (as the stored
# cases do), the tool reads them with --as and writes the descr np.save writes for ml_dtypes' arrays
AS_TYPES = {"bfloat16": (np.uint16, "<V2"), "float8_e4m3fn": (np.uint8, "<V1"),
            "float8_e5m2": (np.uint8, "<f1")}
INDEX_TYPES = {"int32", "int64", "uint32", "uint64"}
UNSIGNED_VIEW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
RUN_TIMEOUT = 300


class Unmappable(Exception):
    """The node cannot be written as one strix command of the contract."""


class OnnxCase:
    def __init__(self, name, node, inputs, outputs, module, types=None, note=None):
        self.name = name
        self.node = node
        self.inputs = inputs          # numpy arrays in the order of node.input
        self.outputs = outputs        # expected arrays in the order of node.output
        self.module = module
        # a stored case's element types (types.txt: inputs, then outputs), else None: the
        # arrays' own; `note` is its agree.txt
        self.types = types
        self.note = note

    def as_type(self):
        """The --as type of a stored case whose data (input 0) is one of AS_TYPES, else None."""
        if self.types and self.types[0] in AS_TYPES:
            return self.types[0]
        return None


# --------------------------------------------------------------------------
# capturing the generators' cases


def collect_cases():
    """Imports the generator modules with `expect` replaced by a recorder.

    The generators' classes derive from onnx's Base, whose metaclass runs every
    export* method while the class is being created, i.e. on import; the
    modules bind `expect` from their package at that moment, so the package's
    name is patched first. Should the exporters not have run on import (a
    module imported earlier, or another ONNX release), they are called here.
    Importing only these modules keeps clear of the unrelated ones that use
    aliases NumPy 1.24 removed (np.float and friends)."""
    import onnx.backend.test.case.node as node_pkg
    from onnx.backend.test.case.base import Base

    cases = []
    current = {"module": None}

    def record(node, inputs, outputs, name, **_kwargs):
        cases.append(OnnxCase(name, node, [np.asarray(a).copy() for a in inputs],
                              [np.asarray(a).copy() for a in outputs], current["module"]))

    saved = getattr(node_pkg, "expect", None)
    node_pkg.expect = record
    problems = []
    try:
        for mod in GENERATOR_MODULES:
            current["module"] = mod
            full = f"{node_pkg.__name__}.{mod}"
            before = len(cases)
            fresh = full not in sys.modules
            module = importlib.import_module(full)
            module.expect = record
            if not fresh or len(cases) == before:
                for obj in list(vars(module).values()):
                    if (isinstance(obj, type) and issubclass(obj, Base) and obj is not Base
                            and obj.__module__ == module.__name__):
                        for attr in list(vars(obj)):
                            if attr.startswith("export"):
                                np.random.seed(0)
                                getattr(obj, attr)()
            if len(cases) == before:
                problems.append(f"module {full} produced no test cases")
    finally:
        if saved is not None:
            node_pkg.expect = saved
    # one case per name (should an exporter have run twice)
    seen = set()
    unique = []
    for c in cases:
        if c.name not in seen:
            seen.add(c.name)
            unique.append(c)
    return unique, problems


def load_stored(root):
    """The cases stored under `root` (one directory each, as scripts/type_vectors.py writes
    them), and the problems of those that cannot be read (each a failure)."""
    import onnx
    cases, problems = [], []
    names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
    if not names:
        problems.append(f"no case directories in {root}")
    for name in names:
        d = os.path.join(root, name)
        try:
            node = onnx.NodeProto()
            with open(os.path.join(d, "node.pb"), "rb") as f:
                node.ParseFromString(f.read())
            inputs = [np.load(os.path.join(d, f"in{k}.npy"), allow_pickle=False) if n else None
                      for k, n in enumerate(node.input)]
            outputs = [np.load(os.path.join(d, f"out{k}.npy"), allow_pickle=False)
                       for k in range(len(node.output))]
            with open(os.path.join(d, "types.txt")) as f:
                types = f.read().split()
            note = None
            if os.path.exists(os.path.join(d, "agree.txt")):
                with open(os.path.join(d, "agree.txt")) as f:
                    note = f.read().strip()
        except Exception as e:  # noqa: BLE001 - a case that cannot be read fails, named
            problems.append(f"{name}: cannot read the case: {type(e).__name__}: {e}")
            continue
        if len(types) != len(inputs) + len(outputs):
            problems.append(f"{name}: types.txt names {len(types)} types for "
                            f"{len(inputs)} inputs and {len(outputs)} outputs")
            continue
        cases.append(OnnxCase(name, node, inputs, outputs, node.op_type.lower(), types, note))
    return cases, problems


# --------------------------------------------------------------------------
# ONNX node -> strix command


def attributes(node):
    import onnx.helper
    out = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode()
        out[a.name] = v
    return out


def present(node, k):
    """Whether the node's input k is given (ONNX marks omitted ones with '')."""
    return k < len(node.input) and node.input[k] != ""


def dtype_name(a):
    return np.dtype(a.dtype).name


def check_element(what, a):
    if dtype_name(a) not in ELEMENT_TYPES:
        raise Unmappable(f"{what} has element type {dtype_name(a)}, which strix does not take")


def check_index(what, a):
    if dtype_name(a) not in INDEX_TYPES:
        raise Unmappable(f"{what} has element type {dtype_name(a)}, not an index type of strix")


def as_int_list(a, what):
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise Unmappable(f"{what} is not an integer tensor ({a.dtype})")
    return [int(v) for v in a.reshape(-1)]


def narrow_value(bits, tname):
    """The value of one element of an AS_TYPES type given by its bits, as a Python float."""
    bits = int(bits)
    if tname == "bfloat16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    exp_bits, mant_bits = (4, 3) if tname == "float8_e4m3fn" else (5, 2)
    bias = (1 << (exp_bits - 1)) - 1
    sign = -1.0 if bits & 0x80 else 1.0
    exp, mant = (bits >> mant_bits) & ((1 << exp_bits) - 1), bits & ((1 << mant_bits) - 1)
    if tname == "float8_e4m3fn" and exp == 15 and mant == 7:
        return float("nan")
    if tname == "float8_e5m2" and exp == 31:
        return sign * float("inf") if mant == 0 else float("nan")
    if exp == 0:
        return sign * mant * 2.0 ** (1 - bias - mant_bits)
    return sign * (1 + mant / (1 << mant_bits)) * 2.0 ** (exp - bias)


def value_text(value, dtype, as_type=None):
    """--value text that the tool reads back as exactly `value` of dtype (or, for an AS_TYPES
    type `as_type`, the value whose bits `value` holds)."""
    if as_type is not None:
        return repr(narrow_value(value, as_type))  # exact in float64, so exact in the type
    v = np.asarray(value).astype(dtype)
    if v.dtype.kind == "f":
        return repr(float(v))        # exact in float64, so exact in the narrower type
    return str(int(v))


def reduction_args(attrs, data, backend):
    if "reduction" not in attrs:
        return []
    red = attrs["reduction"]
    if red not in ("none", "add", "mul", "min", "max"):
        raise Unmappable(f"reduction '{red}' is not one of strix's none|add|mul|min|max")
    args = ["--reduction", red]
    # ONNX's references apply the updates one by one in row-major order; on the
    # device float add/mul is ordered only under --deterministic
    if backend == "vulkan" and red in ("add", "mul") and data.dtype.kind == "f":
        args.append("--deterministic")
    return args


def to_command(case, backend):
    """(arguments with file names, {file name: array}, [output file names]); a stored case of
    one of AS_TYPES adds --as, its files holding the type's bits."""
    args, files, outs = node_command(case, backend)
    t = case.as_type()
    if t is not None:
        carrier = AS_TYPES[t][0]
        if case.inputs[0].dtype != carrier:
            raise Unmappable(f"{t} data stored as {case.inputs[0].dtype}, not {np.dtype(carrier).name}")
        args += ["--as", t]
    return args, files, outs


def node_command(case, backend):
    """to_command's mapping of the node, the same for generated and stored cases."""
    node = case.node
    op = node.op_type
    attrs = attributes(node)
    ins = case.inputs
    outs = [f"y{k}.npy" for k in range(len(case.outputs))]
    if len(node.output) != len(case.outputs):
        raise Unmappable(f"{len(node.output)} node outputs but {len(case.outputs)} expected arrays")

    if op in ("Gather", "GatherElements"):
        x, i = ins
        check_element("data", x)
        check_index("indices", i)
        cmd = "gather" if op == "Gather" else "gather-elements"
        args = [cmd, "--input", "x.npy", "--indices", "i.npy", "--axis", str(attrs.get("axis", 0))]
        return args, {"x.npy": x, "i.npy": i}, outs
    if op == "GatherND":
        x, i = ins
        check_element("data", x)
        check_index("indices", i)
        args = ["gather-nd", "--input", "x.npy", "--indices", "i.npy"]
        if "batch_dims" in attrs:
            args += ["--batch-dimensions", str(attrs["batch_dims"])]
        return args, {"x.npy": x, "i.npy": i}, outs
    if op == "Concat":
        args = ["join"]
        files = {}
        for k, a in enumerate(ins):
            check_element(f"input {k}", a)
            files[f"x{k}.npy"] = a
            args += ["--input", f"x{k}.npy"]
        if "axis" not in attrs:
            raise Unmappable("Concat without an axis attribute")
        args += ["--axis", str(attrs["axis"])]
        return args, files, outs
    if op == "Split":
        x = ins[0]
        check_element("input", x)
        axis = int(attrs.get("axis", 0))
        if not -x.ndim <= axis < x.ndim:
            raise Unmappable(f"axis {axis} outside the input's rank {x.ndim}")
        n = x.shape[axis]
        parts = len(node.output)
        if present(node, 1):
            sizes = as_int_list(ins[1], "split")
        elif "split" in attrs:
            sizes = [int(v) for v in attrs["split"]]
        elif n % parts == 0:
            sizes = [n // parts] * parts
        else:
            # opset 18: equal parts of ceil(n / parts), the last one smaller
            step = -(-n // parts)
            sizes = [min(step, max(0, n - step * k)) for k in range(parts)]
        args = ["split", "--input", "x.npy", "--axis", str(axis),
                "--sizes", ",".join(map(str, sizes))]
        for o in outs:
            args += ["--output", o]
        return args, {"x.npy": x}, outs
    if op == "Pad":
        x = ins[0]
        check_element("data", x)
        mode = attrs.get("mode", "constant")
        if mode not in ("constant", "edge", "reflect", "wrap"):
            raise Unmappable(f"pad mode '{mode}' has no strix counterpart")
        if present(node, 1):
            pads = as_int_list(ins[1], "pads")
        elif "pads" in attrs:
            pads = [int(v) for v in attrs["pads"]]
        else:
            raise Unmappable("Pad without pads")
        value = 0
        if present(node, 2) and np.asarray(ins[2]).size:
            if np.asarray(ins[2]).size != 1:
                raise Unmappable("constant_value with more than one element")
            value = np.asarray(ins[2]).reshape(-1)[0]
        elif "value" in attrs:
            value = attrs["value"]
        axes = list(range(x.ndim))
        if present(node, 3):
            axes = [a % x.ndim for a in as_int_list(ins[3], "axes")]
        if len(pads) != 2 * len(axes):
            raise Unmappable(f"{len(pads)} pads for {len(axes)} axes")
        start = [0] * x.ndim
        end = [0] * x.ndim
        for k, a in enumerate(axes):
            start[a] = pads[k]
            end[a] = pads[len(axes) + k]
        args = ["pad", "--input", "x.npy", "--mode", mode,
                "--start", ",".join(map(str, start)), "--end", ",".join(map(str, end))]
        if mode == "constant":
            args += ["--value", value_text(value, x.dtype, case.as_type())]
        return args, {"x.npy": x}, outs
    if op in ("Scatter", "ScatterElements", "ScatterND"):
        x, i, u = ins
        check_element("data", x)
        check_element("updates", u)
        check_index("indices", i)
        files = {"x.npy": x, "i.npy": i, "u.npy": u}
        if op == "ScatterND":
            args = ["scatter-nd", "--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy"]
        else:
            args = ["scatter", "--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy",
                    "--axis", str(attrs.get("axis", 0))]
        return args + reduction_args(attrs, x, backend), files, outs
    if op == "Slice":
        x = ins[0]
        check_element("data", x)
        starts = as_int_list(ins[1], "starts")
        ends = as_int_list(ins[2], "ends")
        args = ["slice", "--input", "x.npy", "--starts", ",".join(map(str, starts)),
                "--ends", ",".join(map(str, ends))]
        if present(node, 3):
            args += ["--axes", ",".join(map(str, as_int_list(ins[3], "axes")))]
        if present(node, 4):
            args += ["--steps", ",".join(map(str, as_int_list(ins[4], "steps")))]
        return args, {"x.npy": x}, outs
    if op == "Tile":
        x = ins[0]
        check_element("input", x)
        reps = as_int_list(ins[1], "repeats")
        return ["tile", "--input", "x.npy", "--repeats", ",".join(map(str, reps))], {"x.npy": x}, outs
    raise Unmappable(f"op type {op} has no strix command")


# --------------------------------------------------------------------------
# running and comparing


def same_bits(got, want):
    """Equal element type, shape and bits (so NaNs compare by their bits)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    u = UNSIGNED_VIEW[got.dtype.itemsize]
    return np.array_equal(np.ascontiguousarray(got).view(u), np.ascontiguousarray(want).view(u))


def difference(got, want):
    if got.dtype != want.dtype:
        return f"element type {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    u = UNSIGNED_VIEW[got.dtype.itemsize]
    bad = np.argwhere(np.ascontiguousarray(got).view(u) != np.ascontiguousarray(want).view(u))
    at = tuple(int(v) for v in bad[0])
    return (f"{len(bad)} of {got.size} elements differ, first at {at}: "
            f"got {got[at]!r}, expected {want[at]!r}")


def read_npy_raw(path):
    """(descr, fortran_order, shape, data bytes) of a .npy file, whatever its descr (NumPy
    cannot load '<f1', the descr of float8_e5m2)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file")
    if raw[6] == 1:
        start, hlen = 10, struct.unpack("<H", raw[8:10])[0]
    else:
        start, hlen = 12, struct.unpack("<I", raw[8:12])[0]
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    return header["descr"], header["fortran_order"], tuple(header["shape"]), raw[start + hlen:]


def stored_difference(path, want, tname):
    """None when the .npy file at `path` holds `want` (a stored case's expected array, its raw
    bits) as type `tname`: the descr strix writes for the type, the shape, the bytes; else what differs."""
    descr, fortran, shape, data = read_npy_raw(path)
    want = np.ascontiguousarray(want)
    expected = AS_TYPES[tname][1] if tname in AS_TYPES else np.dtype(tname).str
    if descr != expected:
        return f"element type {descr!r}, expected {expected!r} ({tname})"
    if shape != want.shape:
        return f"shape {shape}, expected {want.shape}"
    if fortran and len(shape) >= 2:
        return "written in Fortran order"
    if data == want.tobytes():
        return None
    u = UNSIGNED_VIEW[want.dtype.itemsize]
    if len(data) != want.nbytes:
        return f"{len(data)} data bytes, expected {want.nbytes}"
    got = np.frombuffer(data, dtype=u).reshape(shape)
    bad = np.argwhere(got != want.view(u))
    at = tuple(int(v) for v in bad[0])
    return (f"{len(bad)} of {want.size} elements differ, first at {at}: "
            f"got bits {int(got[at]):#x}, expected {int(want.view(u)[at]):#x}")


def run_one(exe, backend, root, case):
    """(passed, reason, command line or None)."""
    try:
        args, files, outs = to_command(case, backend)
    except Unmappable as e:
        return False, f"cannot be mapped to a strix command: {e}", None
    d = os.path.join(root, case.name)
    os.makedirs(d, exist_ok=True)
    for fname, arr in files.items():
        np.save(os.path.join(d, fname), arr)
    argv = [exe] + [os.path.join(d, a) if a in files or a in outs else a for a in args]
    if "--output" not in args:
        argv += ["--output", os.path.join(d, outs[0])]
        if len(outs) != 1:
            return False, f"{len(outs)} outputs for a one-output command", None
    if backend:
        argv += ["--backend", backend]
    cmd = shlex.join(argv)
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"no answer within {RUN_TIMEOUT} s", cmd
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().replace("\n", " | ")
        return False, f"exit status {proc.returncode}: {err[:400]}", cmd
    for k, (o, want) in enumerate(zip(outs, case.outputs)):
        path = os.path.join(d, o)
        if case.types is not None:  # a stored case: the type's descr, the bytes
            try:
                problem = stored_difference(path, want, case.types[len(case.inputs) + k])
            except Exception as e:  # noqa: BLE001 - any unreadable output is a failure
                problem = f"unreadable: {e}"
            if problem:
                return False, f"output {k}: {problem}", cmd
            continue
        try:
            got = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - any unreadable output is a failure
            return False, f"output {k} unreadable: {e}", cmd
        if not same_bits(got, want):
            return False, f"output {k}: {difference(got, want)}", cmd
    shutil.rmtree(d, ignore_errors=True)
    return True, None, cmd


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("strix", help="path of the strix executable")
    ap.add_argument("--backend", choices=["cpu", "vulkan"], default=None,
                    help="backend to pass to the tool (default: the tool's)")
    ap.add_argument("--filter", default="", help="run only cases whose name contains this")
    ap.add_argument("--keep", default=None, help="directory for the case files (kept)")
    ap.add_argument("--stored", default=None, metavar="DIR",
                    help="run the cases stored in DIR (test/vectors/types/onnx) instead of the generators'")
    args = ap.parse_args(argv)

    exe = os.path.abspath(args.strix)
    if not os.access(exe, os.X_OK):
        print(f"onnx_node_tests: {args.strix} is not an executable", file=sys.stderr)
        return 2
    try:
        if args.stored:
            if not os.path.isdir(args.stored):
                print(f"onnx_node_tests: {args.stored} is not a directory", file=sys.stderr)
                return 2
            cases, problems = load_stored(args.stored)
            # (each problem names its case first; the directory's own has no case to filter by)
            problems = [p for p in problems if args.filter in p.split(":")[0] or p.startswith("no case")]
        else:
            cases, problems = collect_cases()
    except Exception as e:  # noqa: BLE001 - report any import failure in one line
        what = "the stored cases" if args.stored else "ONNX's node test generators"
        print(f"onnx_node_tests: cannot load {what}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    cases = [c for c in cases if args.filter in c.name]
    root = args.keep or tempfile.mkdtemp(prefix="strix-onnx-")
    os.makedirs(root, exist_ok=True)

    started = time.monotonic()
    passed = failed = 0
    for problem in problems:
        failed += 1
        print(f"FAIL {'' if args.stored else 'generators: '}{problem}", flush=True)
    for case in cases:
        ok, why, cmd = run_one(exe, args.backend, root, case)
        if ok:
            passed += 1
            print(f"PASS {case.name}", flush=True)
        else:
            failed += 1
            tail = f" | $ {cmd}" if cmd else ""
            note = f" [{case.note}]" if case.note else ""
            print(f"FAIL {case.name}: {why}{note}{tail}", flush=True)
    if not cases and not problems:
        failed += 1
        print(f"FAIL no case matched --filter {args.filter!r}")
    elapsed = time.monotonic() - started
    source = f"stored in {args.stored}" if args.stored else "from python3-onnx's generators"
    print(f"onnx_node_tests: {len(cases)} cases {source}, "
          f"backend {args.backend or 'default'}, {elapsed:.1f} s")
    if failed:
        print(f"onnx_node_tests: files of the failing cases are in {root}")
    elif not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
