#!/usr/bin/env python3
"""End-to-end tests of the strix command line tool.

    tool_test.py STRIX_EXE [unittest options]

Runs the four DirectML operators on the examples of the specification (and a
few more), then the family beyond them (gather-elements, gather-nd, split,
scatter-nd, the scatter reductions, pad wrap and negative pads) on ONNX's
documentation examples and hand-worked answers, checks the commands that are
not operators, checks that every kind of bad input exits with status 2, one
line on stderr (naming the operator, for the family) and no output written,
and finishes with scripts/check_tool.py's edge cases (which needs NumPy;
the tests themselves use plain Python and read and write .npy files here).
"""

import ast
import math
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

STRIX = None                      # set from the command line in main()
# A sanitized build's run (STRIX_TEST_REDUCED): its tool starts in about 0.33 s, so the refusal
# checks run one of their two output variants per call, in turn (both kinds still run, and the
# plain build's run of this suite runs both every time), and fewer drawn edge cases.
REDUCED = bool(os.environ.get("STRIX_TEST_REDUCED"))
_variant_turn = [0]


def output_variants():
    """The output variants of a refusal check: an existing file and a missing one (in a reduced
    run, one of them, taking turns)."""
    if not REDUCED:
        return ["existing", "missing"]
    _variant_turn[0] += 1
    return [("existing", "missing")[_variant_turn[0] % 2]]
CHECK_TOOL = Path(__file__).resolve().parent.parent / "scripts" / "check_tool.py"
RUN_TIMEOUT = 60

# --------------------------------------------------------------------------
# .npy files in plain Python

FORMATS = {"<f8": "d", "<f4": "f", "<f2": "e", "<i8": "q", "<i4": "i", "<i2": "h",
           "|i1": "b", "<u8": "Q", "<u4": "I", "<u2": "H", "|u1": "B"}
DESCR = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "int64": "<i8",
         "int32": "<i4", "int16": "<i2", "int8": "|i1", "uint64": "<u8",
         "uint32": "<u4", "uint16": "<u2", "uint8": "|u1"}


def flatten(nested):
    """Row-major values and the shape of a nested list (a scalar has shape ())."""
    if not isinstance(nested, (list, tuple)):
        return [nested], ()
    if not nested:
        return [], (0,)
    parts = [flatten(n) for n in nested]
    inner = parts[0][1]
    assert all(p[1] == inner for p in parts), "ragged nested list"
    return [v for p in parts for v in p[0]], (len(nested),) + inner


def c_to_f(values, shape):
    """Reorder row-major values into column-major order."""
    if len(shape) < 2:
        return list(values)
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    out = []
    total = math.prod(shape)
    for k in range(total):
        # k is a column-major position: decompose with the first index fastest
        rem, off = k, 0
        for d in range(len(shape)):
            rem, i = divmod(rem, shape[d])
            off += i * strides[d]
        out.append(values[off])
    return out


def npy_bytes(descr, shape, data, fortran=False):
    header = "{'descr': %r, 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", repr(tuple(shape)))
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data


def write_npy(path, dtype, nested, fortran=False, shape=None):
    values, natural_shape = flatten(nested)
    shape = tuple(shape) if shape is not None else natural_shape
    assert math.prod(shape) == len(values)
    descr = DESCR[dtype]
    if fortran:
        values = c_to_f(values, shape)
    data = struct.pack("<%d%s" % (len(values), FORMATS[descr]), *values)
    Path(path).write_bytes(npy_bytes(descr, shape, data, fortran))
    return path


def read_npy(path):
    """(descr, fortran_order, shape, row-major values)."""
    raw = Path(path).read_bytes()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = raw[6]
    if major == 1:
        hlen = struct.unpack("<H", raw[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack("<I", raw[8:12])[0]
        start = 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    fmt = FORMATS[descr]
    count = math.prod(shape)
    size = struct.calcsize(fmt)
    body = raw[start + hlen:]
    if len(body) != count * size:
        raise ValueError(f"{path}: {len(body)} data bytes for {count} elements")
    values = list(struct.unpack("<%d%s" % (count, fmt), body))
    if fortran and len(shape) >= 2:
        # undo column-major order
        c = [None] * count
        strides = [1] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            strides[d] = strides[d + 1] * shape[d + 1]
        for k in range(count):
            rem, off = k, 0
            for d in range(len(shape)):
                rem, i = divmod(rem, shape[d])
                off += i * strides[d]
            c[off] = values[k]
        values = c
    return descr, fortran, shape, values


# --------------------------------------------------------------------------
# running the tool


def strix(*args, timeout=RUN_TIMEOUT):
    return subprocess.run([STRIX, *map(str, args)], capture_output=True, timeout=timeout)


def text(b):
    return b.decode("utf-8", errors="replace")


class ToolCase(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="strix-tool-test-"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return self.dir / name

    def npy(self, name, dtype, nested, fortran=False, shape=None):
        return write_npy(self.path(name), dtype, nested, fortran, shape)

    def run_ok(self, *args):
        proc = strix(*args)
        self.assertEqual(proc.returncode, 0,
                         f"strix {' '.join(map(str, args))} exited {proc.returncode}: "
                         f"{text(proc.stderr).strip()}")
        return proc

    def check_output(self, path, dtype, nested, shape=None):
        values, natural_shape = flatten(nested)
        shape = tuple(shape) if shape is not None else natural_shape
        descr, fortran, got_shape, got = read_npy(path)
        self.assertEqual(descr, DESCR[dtype], f"element type of {path}")
        self.assertFalse(fortran and len(got_shape) >= 2, "output must be in C order")
        self.assertEqual(got_shape, shape, f"shape of {path}")
        self.assertEqual(got, values, f"values of {path}")

    def op(self, expected_dtype, expected, *args, shape=None):
        """Run an operator into out.npy and compare with the expected nested list."""
        out = self.path("out.npy")
        if out.exists():
            out.unlink()
        self.run_ok(*args, "--output", out)
        self.check_output(out, expected_dtype, expected, shape)
        return out


# --------------------------------------------------------------------------
# the examples of the specification

X32 = [[1, 2], [3, 4], [5, 6]]
PAD_IN = [[[[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]]]]


class GatherTests(ToolCase):
    def test_example1_1d(self):
        x = self.npy("x.npy", "float32", [11, 12, 13, 14])
        i = self.npy("i.npy", "uint32", [3, 1, 3, 0, 2])
        self.op("float32", [14, 12, 14, 11, 13], "gather", "--input", x, "--indices", i, "--axis", 0)
        self.op("float32", [14, 12, 14, 11, 13], "gather", "--input", x, "--indices", i,
                "--axis", 0, "--index-dimensions", 1)

    def test_example2_rows(self):
        x = self.npy("x.npy", "float32", X32)
        i = self.npy("i.npy", "uint32", [[0, 1, 1, 2]])
        rows = [[1, 2], [3, 4], [3, 4], [5, 6]]
        self.op("float32", rows, "gather", "--input", x, "--indices", i, "--axis", 0,
                "--index-dimensions", 1)
        # the natural form keeps the indices' leading 1
        self.op("float32", [rows], "gather", "--input", x, "--indices", i, "--axis", 0)

    def test_example3_swap_columns(self):
        # printed with IndexDimensions 2, which breaks the rank rule; its data are those of 1
        x = self.npy("x.npy", "float32", X32)
        i = self.npy("i.npy", "uint32", [[1, 0]])
        self.op("float32", [[2, 1], [4, 3], [6, 5]], "gather", "--input", x, "--indices", i,
                "--axis", 1, "--index-dimensions", 1)
        self.op("float32", [[[2, 1]], [[4, 3]], [[6, 5]]], "gather", "--input", x,
                "--indices", i, "--axis", 1)

    def test_example3_misprint_is_rejected(self):
        x = self.npy("x.npy", "float32", X32)
        i = self.npy("i.npy", "uint32", [[1, 0]])
        expect_bad(self, ["gather", "--input", x, "--indices", i, "--axis", 1,
                          "--index-dimensions", 2],
                   ["index-dimensions", "index dimensions", "rank", "gather"])

    def test_example4_nested(self):
        x = self.npy("x.npy", "float32", [[[1, 2, 3], [4, 5, 6], [7, 8, 9]]])
        i = self.npy("i.npy", "uint32", [[[0, 2]]])
        self.op("float32", [[[1, 3]], [[4, 6]], [[7, 9]]], "gather", "--input", x,
                "--indices", i, "--axis", 2, "--index-dimensions", 2)

    def test_example5_nested(self):
        x = self.npy("x.npy", "float32", [[[1, 2], [3, 4], [5, 6]]])
        i = self.npy("i.npy", "uint32", [[[0, 1], [1, 2]]])
        self.op("float32", [[[1, 2], [3, 4]], [[3, 4], [5, 6]]], "gather", "--input", x,
                "--indices", i, "--axis", 1, "--index-dimensions", 2)

    def test_negative_axis_and_indices(self):
        x = self.npy("x.npy", "int16", X32)
        i = self.npy("i.npy", "int32", [-1, 0, -2])
        self.op("int16", [[2, 1, 1], [4, 3, 3], [6, 5, 5]], "gather", "--input", x,
                "--indices", i, "--axis", -1)
        self.op("int16", [[5, 6], [1, 2], [3, 4]], "gather", "--input", x, "--indices", i,
                "--axis", -2)

    def test_index_types(self):
        x = self.npy("x.npy", "uint8", [10, 20, 30, 40])
        for idt in ("int32", "int64", "uint32", "uint64"):
            i = self.npy(f"i_{idt}.npy", idt, [[3, 0], [2, 2]])
            self.op("uint8", [[40, 10], [30, 30]], "gather", "--input", x, "--indices", i,
                    "--axis", 0)

    def test_fortran_order_input(self):
        x = self.npy("x.npy", "float64", [[1, 2, 3], [4, 5, 6]], fortran=True)
        i = self.npy("i.npy", "int64", [2, 0])
        self.op("float64", [[3, 1], [6, 4]], "gather", "--input", x, "--indices", i,
                "--axis", 1)

    def test_clamp_policy(self):
        x = self.npy("x.npy", "int32", [11, 12, 13, 14])
        i = self.npy("i.npy", "int64", [7, -9, -1, 2])
        self.op("int32", [14, 11, 14, 13], "gather", "--input", x, "--indices", i, "--axis", 0,
                "--out-of-range", "clamp")
        u = self.npy("u.npy", "uint64", [2 ** 64 - 1, 1])
        self.op("int32", [14, 12], "gather", "--input", x, "--indices", u, "--axis", 0,
                "--out-of-range", "clamp")


class JoinTests(ToolCase):
    A = [[[[1, 2], [3, 4]]]]
    B = [[[[5, 6], [7, 8]]]]
    C = [[[[9, 10], [11, 12]]]]

    def test_example1(self):
        a = self.npy("a.npy", "float32", [[[[1, 2, 3], [4, 5, 6]]]])
        b = self.npy("b.npy", "float32", [[[[7, 8, 9, 10], [11, 12, 13, 14]]]])
        expect = [[[[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]]]
        self.op("float32", expect, "join", "--input", a, "--input", b, "--axis", 3)
        self.op("float32", expect, "join", "--input", a, "--input", b, "--axis", -1)

    def test_example2_axes(self):
        a = self.npy("a.npy", "float32", self.A)
        b = self.npy("b.npy", "float32", self.B)
        c = self.npy("c.npy", "float32", self.C)
        ins = ["--input", a, "--input", b, "--input", c]
        self.op("float32", [[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]],
                "join", *ins, "--axis", 1)
        self.op("float32", [[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]],
                "join", *ins, "--axis", 2)
        self.op("float32", [[[[1, 2, 5, 6, 9, 10], [3, 4, 7, 8, 11, 12]]]],
                "join", *ins, "--axis", 3)
        self.op("float32", [[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]],
                "join", *ins, "--axis", -2)

    def test_single_input_copies(self):
        a = self.npy("a.npy", "int8", [[-128, 127], [0, -1]], fortran=True)
        self.op("int8", [[-128, 127], [0, -1]], "join", "--input", a, "--axis", 0)

    def test_float_bits_survive(self):
        # -0.0 and a NaN with a payload must come through unchanged
        a = self.path("a.npy")
        bits = [0x8000, 0x7E01, 0xFC00, 0x3C00]
        a.write_bytes(npy_bytes("<f2", (4,), struct.pack("<4H", *bits)))
        b = self.path("b.npy")
        b.write_bytes(npy_bytes("<f2", (1,), struct.pack("<H", 0xFD23)))
        out = self.path("out.npy")
        self.run_ok("join", "--input", a, "--input", b, "--axis", 0, "--output", out)
        raw = out.read_bytes()
        self.assertEqual(raw[-10:], struct.pack("<5H", *bits, 0xFD23))


class PadTests(ToolCase):
    def pad(self, mode, expected, *extra):
        x = self.npy("x.npy", "float32", PAD_IN)
        self.op("float32", expected, "pad", "--input", x, "--mode", mode,
                "--start", "0,0,1,2", "--end", "0,0,3,4", *extra)

    def test_example1_constant(self):
        n = [9] * 10
        r1 = [9, 9, 1, 2, 3, 4, 9, 9, 9, 9]
        r2 = [9, 9, 5, 6, 7, 8, 9, 9, 9, 9]
        self.pad("constant", [[[n, r1, r2, r1, r2, n, n, n]]], "--value", 9)

    def test_example2_edge(self):
        a = [1, 1, 1, 2, 3, 4, 4, 4, 4, 4]
        b = [5, 5, 5, 6, 7, 8, 8, 8, 8, 8]
        self.pad("edge", [[[a, a, b, a, b, b, b, b]]])

    def test_example3_reflect(self):
        a = [7, 6, 5, 6, 7, 8, 7, 6, 5, 6]
        b = [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]
        self.pad("reflect", [[[a, b, a, b, a, b, a, b]]])

    def test_example4_symmetric(self):
        a = [2, 1, 1, 2, 3, 4, 4, 3, 2, 1]
        b = [6, 5, 5, 6, 7, 8, 8, 7, 6, 5]
        self.pad("symmetric", [[[a, a, b, a, b, b, a, b]]])

    def test_1d_mirrors(self):
        x = self.npy("x.npy", "int32", [1, 2, 3, 4])
        common = ["pad", "--input", x, "--start", 2, "--end", 4]
        self.op("int32", [3, 2, 1, 2, 3, 4, 3, 2, 1, 2], *common, "--mode", "reflect")
        self.op("int32", [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], *common, "--mode", "symmetric")

    def test_wide_pads_and_size_one(self):
        x = self.npy("x.npy", "uint16", [1, 2, 3])
        # period 2(n-1) = 4 for reflect, 2n = 6 for symmetric
        self.op("uint16", [3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1], "pad", "--input", x,
                "--mode", "reflect", "--start", 6, "--end", 6)
        self.op("uint16", [1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1, 2, 3], "pad", "--input", x,
                "--mode", "symmetric", "--start", 6, "--end", 6)
        one = self.npy("one.npy", "int8", [[-5]])
        self.op("int8", [[-5] * 5] * 3, "pad", "--input", one, "--mode", "reflect",
                "--start", "1,2", "--end", "1,2")

    def test_integer_values(self):
        x = self.npy("x.npy", "int32", [1])
        for value, want in (("10.6", 10), ("-10.6", -10), ("7", 7), ("-0.9", 0)):
            self.op("int32", [want, 1, want], "pad", "--input", x, "--mode", "constant",
                    "--start", 1, "--end", 1, "--value", value)
        x64 = self.npy("x64.npy", "int64", [0])
        big = 2 ** 62 + 1
        self.op("int64", [big, 0], "pad", "--input", x64, "--mode", "constant",
                "--start", 1, "--end", 0, "--value", str(big))
        xu = self.npy("xu.npy", "uint64", [0])
        self.op("uint64", [0, 2 ** 64 - 1], "pad", "--input", xu, "--mode", "constant",
                "--start", 0, "--end", 1, "--value", str(2 ** 64 - 1))

    def test_default_value_is_zero(self):
        x = self.npy("x.npy", "float64", [[1.5]])
        self.op("float64", [[0, 0], [1.5, 0]], "pad", "--input", x, "--mode", "constant",
                "--start", "1,0", "--end", "0,1")


class ScatterTests(ToolCase):
    def test_example1_duplicates_last_wins(self):
        x = self.npy("x.npy", "float32", [0, 1, 2, 3, 4])
        i = self.npy("i.npy", "uint32", [3, 1, 3, 0])
        u = self.npy("u.npy", "float32", [5, 6, 7, 8])
        self.op("float32", [8, 6, 2, 7, 4], "scatter", "--input", x, "--indices", i,
                "--updates", u, "--axis", 0)

    def test_example2_corrected(self):
        x = self.npy("x.npy", "float32", [[0, 0, 0]] * 3)
        i = self.npy("i.npy", "uint32", [[1, 0, 2], [0, 2, 1]])
        u = self.npy("u.npy", "float32", [[10, 11, 12], [20, 21, 22]])
        want = [[20, 11, 0], [10, 0, 22], [0, 21, 12]]
        self.op("float32", want, "scatter", "--input", x, "--indices", i, "--updates", u,
                "--axis", 0)
        self.op("float32", want, "scatter", "--input", x, "--indices", i, "--updates", u,
                "--axis", -2)

    def test_axis1_negative_indices_smaller_updates(self):
        x = self.npy("x.npy", "int64", [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        i = self.npy("i.npy", "int32", [[-1], [0]])
        u = self.npy("u.npy", "int64", [[-7], [2 ** 62 + 1]])
        self.op("int64", [[1, 2, -7], [2 ** 62 + 1, 5, 6], [7, 8, 9]], "scatter", "--input", x,
                "--indices", i, "--updates", u, "--axis", -1)

    def test_clamp_policy(self):
        x = self.npy("x.npy", "uint8", [0, 0, 0, 0])
        i = self.npy("i.npy", "int32", [9, -9])
        u = self.npy("u.npy", "uint8", [200, 100])
        self.op("uint8", [100, 0, 0, 200], "scatter", "--input", x, "--indices", i,
                "--updates", u, "--axis", 0, "--out-of-range", "clamp")


# --------------------------------------------------------------------------
# the family beyond DirectML: gather-elements, gather-nd, split, scatter-nd,
# scatter reductions, pad wrap and negative pads

INDEX_TYPES = ("int32", "int64", "uint32", "uint64")
UNSIGNED_CODE = {2: "H", 4: "I", 8: "Q"}
FLOAT_BITS = {"float16": ("<f2", "e", "H", 16), "float32": ("<f4", "f", "I", 32),
              "float64": ("<f8", "d", "Q", 64)}


def f32(v):
    """v rounded to float32 (a Python float holding a float32 value)."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def float_bits(dtype, v):
    _, code, ucode, _ = FLOAT_BITS[dtype]
    return struct.unpack("<" + ucode, struct.pack("<" + code, v))[0]


def quiet_nan(dtype, payload, negative=False):
    """Bit pattern of a quiet NaN of dtype with a payload and a sign."""
    bits = FLOAT_BITS[dtype][3]
    mant = {16: 10, 32: 23, 64: 52}[bits]
    exp_all = ((1 << (bits - 1 - mant)) - 1) << mant
    return (1 << (bits - 1) if negative else 0) | exp_all | (1 << (mant - 1)) | payload


def read_bits(path):
    """(descr, shape, bit patterns in row-major order) of a C-order .npy file."""
    descr, fortran, shape, _ = read_npy(path)
    assert not (fortran and len(shape) >= 2), "output must be in C order"
    size = struct.calcsize(FORMATS[descr])
    count = math.prod(shape)
    raw = Path(path).read_bytes()
    body = raw[len(raw) - count * size:] if count else b""
    return descr, shape, list(struct.unpack("<%d%s" % (count, UNSIGNED_CODE[size]), body))


class FamilyCase(ToolCase):
    def npy_bits(self, name, dtype, bits, shape):
        descr, _, ucode, _ = FLOAT_BITS[dtype]
        data = struct.pack("<%d%s" % (len(bits), ucode), *bits)
        path = self.path(name)
        path.write_bytes(npy_bytes(descr, shape, data))
        return path

    def check_bits(self, path, dtype, bits, shape):
        descr, got_shape, got = read_bits(path)
        self.assertEqual(descr, FLOAT_BITS[dtype][0], f"element type of {path}")
        self.assertEqual(got_shape, tuple(shape), f"shape of {path}")
        self.assertEqual([hex(b) for b in got], [hex(b) for b in bits], f"bits of {path}")


class GatherElementsTests(FamilyCase):
    def ge(self, dtype, expected, x, i, axis, *extra, shape=None):
        return self.op(dtype, expected, "gather-elements", "--input", x, "--indices", i,
                       "--axis", axis, *extra, shape=shape)

    def test_onnx_examples(self):
        x = self.npy("x.npy", "float32", [[1, 2], [3, 4]])
        self.ge("float32", [[1, 1], [4, 3]], x, self.npy("i.npy", "int64", [[0, 0], [1, 0]]), 1)
        x3 = self.npy("x3.npy", "float32", [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        i3 = self.npy("i3.npy", "int32", [[1, 2, 0], [2, 0, 0]])
        self.ge("float32", [[4, 8, 3], [7, 2, 3]], x3, i3, 0)
        neg = self.npy("neg.npy", "int32", [[-1, -2, 0], [-2, 0, 0]])
        self.ge("float32", [[7, 5, 3], [4, 2, 3]], x3, neg, 0)
        self.ge("float32", [[7, 5, 3], [4, 2, 3]], x3, neg, -2)

    def test_indices_smaller_off_the_axis_longer_on_it(self):
        x = self.npy("x.npy", "int16", [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        i = self.npy("i.npy", "uint32", [[2, 0, 0, 1], [1, 1, 2, 0]])
        self.ge("int16", [[3, 1, 1, 2], [5, 5, 6, 4]], x, i, 1)
        col = self.npy("col.npy", "int64", [[2], [0], [1], [2]])
        self.ge("int16", [[7], [1], [4], [7]], x, col, 0)

    def test_index_types_3d_last_axis(self):
        x = self.npy("x.npy", "float64", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], fortran=True)
        for idt in INDEX_TYPES:
            i = self.npy(f"i_{idt}.npy", idt, [[[1], [0]], [[1], [1]]])
            self.ge("float64", [[[2], [3]], [[6], [8]]], x, i, 2)

    def test_clamp_policy(self):
        x = self.npy("x.npy", "uint8", [[10, 20, 30]])
        i = self.npy("i.npy", "int64", [[7, -9, -1, 1]])
        self.ge("uint8", [[30, 10, 30, 20]], x, i, 1, "--out-of-range", "clamp")
        u = self.npy("u.npy", "uint64", [[2 ** 64 - 1, 0]])
        self.ge("uint8", [[30, 10]], x, u, -1, "--out-of-range", "clamp")

    def test_zero_indices(self):
        x = self.npy("x.npy", "int32", [[1, 2], [3, 4]])
        i = self.npy("i.npy", "int32", [], shape=(2, 0))
        self.ge("int32", [], x, i, 1, shape=(2, 0))


class GatherNDTests(FamilyCase):
    D3 = [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]

    def gnd(self, dtype, expected, x, i, *extra, shape=None):
        return self.op(dtype, expected, "gather-nd", "--input", x, "--indices", i, *extra,
                       shape=shape)

    def test_onnx_examples(self):
        x2 = self.npy("x2.npy", "int32", [[0, 1], [2, 3]])
        self.gnd("int32", [0, 3], x2, self.npy("a.npy", "int64", [[0, 0], [1, 1]]))
        self.gnd("int32", [[2, 3], [0, 1]], x2, self.npy("b.npy", "int64", [[1], [0]]))
        x3 = self.npy("x3.npy", "float32", self.D3)
        self.gnd("float32", [[2, 3], [4, 5]], x3, self.npy("c.npy", "int64", [[0, 1], [1, 0]]))
        self.gnd("float32", [[[2, 3]], [[4, 5]]], x3,
                 self.npy("d.npy", "int64", [[[0, 1]], [[1, 0]]]))
        self.gnd("float32", [[2, 3], [4, 5]], x3, self.npy("e.npy", "int64", [[1], [0]]),
                 "--batch-dimensions", 1)

    def test_batch_dimensions(self):
        x3 = self.npy("x3.npy", "int8", self.D3)
        i = self.npy("i.npy", "uint32", [[[1], [0]], [[0], [1]]])
        self.gnd("int8", [[1, 2], [4, 7]], x3, i, "--batch-dimensions", 2)
        i0 = self.npy("i0.npy", "int32", [[1], [0]])
        self.gnd("int8", [[[4, 5], [6, 7]], [[0, 1], [2, 3]]], x3, i0, "--batch-dimensions", 0)

    def test_negative_indices_and_index_types(self):
        x2 = self.npy("x2.npy", "uint16", [[10, 11, 12], [13, 14, 15]])
        for idt in INDEX_TYPES:
            i = self.npy(f"i_{idt}.npy", idt, [[1, 2], [0, 0], [1, 0]])
            self.gnd("uint16", [15, 10, 13], x2, i)
        neg = self.npy("neg.npy", "int64", [[-1, -3], [-2, 2]])
        self.gnd("uint16", [13, 12], x2, neg)

    def test_clamp_policy(self):
        x2 = self.npy("x2.npy", "int32", [[0, 1], [2, 3]])
        i = self.npy("i.npy", "int64", [[5, -9], [-1, 7]])
        self.gnd("int32", [2, 3], x2, i, "--out-of-range", "clamp")

    def test_zero_index_tuples(self):
        x3 = self.npy("x3.npy", "float32", self.D3)
        i = self.npy("i.npy", "int64", [], shape=(0, 1))
        self.gnd("float32", [], x3, i, shape=(0, 2, 2))


class SplitTests(FamilyCase):
    def split(self, dtype, expected, x, axis, sizes, shapes=None):
        outs = [self.path(f"y{j}.npy") for j in range(len(sizes))]
        args = ["split", "--input", x, "--axis", axis, "--sizes", ",".join(map(str, sizes))]
        for o in outs:
            if o.exists():
                o.unlink()
            args += ["--output", o]
        self.run_ok(*args)
        for j, (o, want) in enumerate(zip(outs, expected)):
            self.check_output(o, dtype, want, shapes[j] if shapes else None)

    def test_onnx_examples(self):
        x = self.npy("x.npy", "float32", [1, 2, 3, 4, 5, 6])
        self.split("float32", [[1, 2], [3, 4], [5, 6]], x, 0, [2, 2, 2])
        self.split("float32", [[1, 2], [3, 4, 5, 6]], x, 0, [2, 4])
        x2 = self.npy("x2.npy", "float32", [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]])
        self.split("float32", [[[1, 2, 3], [7, 8, 9]], [[4, 5, 6], [10, 11, 12]]], x2, 1, [3, 3])
        self.split("float32", [[[1, 2], [7, 8]], [[3, 4, 5, 6], [9, 10, 11, 12]]], x2, 1, [2, 4])
        self.split("float32", [[[1, 2], [7, 8]], [[3, 4, 5, 6], [9, 10, 11, 12]]], x2, -1, [2, 4])
        self.split("float32", [[[1, 2, 3, 4, 5, 6]], [[7, 8, 9, 10, 11, 12]]], x2, 0, [1, 1])

    def test_zero_sizes(self):
        x = self.npy("x.npy", "int8", [1, 2, 3])
        self.split("int8", [[], [1, 2, 3], []], x, 0, [0, 3, 0])
        x2 = self.npy("x2.npy", "uint16", [[1, 2, 3], [4, 5, 6]])
        self.split("uint16", [[], [[1, 2], [4, 5]], [], [[3], [6]]], x2, 1, [0, 2, 0, 1],
                   shapes=[(2, 0), (2, 2), (2, 0), (2, 1)])
        empty = self.npy("empty.npy", "float32", [])
        self.split("float32", [[], [], []], empty, 0, [0, 0, 0])

    def test_one_part_copies(self):
        x = self.npy("x.npy", "int64", [[2 ** 62 + 1, -5]], fortran=True)
        self.split("int64", [[[2 ** 62 + 1, -5]]], x, 1, [2])


class ScatterNDTests(FamilyCase):
    DATA = [[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
            [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
            [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]],
            [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]]
    UPD = [[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
           [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]]

    def snd(self, dtype, expected, x, i, u, *extra):
        return self.op(dtype, expected, "scatter-nd", "--input", x, "--indices", i,
                       "--updates", u, *extra)

    def test_onnx_example1(self):
        x = self.npy("x.npy", "float32", [1, 2, 3, 4, 5, 6, 7, 8])
        i = self.npy("i.npy", "int64", [[4], [3], [1], [7]])
        u = self.npy("u.npy", "float32", [9, 10, 11, 12])
        self.snd("float32", [1, 11, 3, 10, 9, 6, 7, 12], x, i, u)

    def test_onnx_example2_slices(self):
        x = self.npy("x.npy", "float32", self.DATA)
        i = self.npy("i.npy", "int64", [[0], [2]])
        u = self.npy("u.npy", "float32", self.UPD)
        want = [self.UPD[0], self.DATA[1], self.UPD[1], self.DATA[3]]
        self.snd("float32", want, x, i, u)
        # ONNX's add and mul examples: both updates land on slice 0
        i0 = self.npy("i0.npy", "int64", [[0], [0]])
        add = [[[a + b + c for a, b, c in zip(r0, r1, r2)]
                for r0, r1, r2 in zip(self.DATA[0], self.UPD[0], self.UPD[1])]] + self.DATA[1:]
        mul = [[[a * b * c for a, b, c in zip(r0, r1, r2)]
                for r0, r1, r2 in zip(self.DATA[0], self.UPD[0], self.UPD[1])]] + self.DATA[1:]
        self.snd("float32", add, x, i0, u, "--reduction", "add")
        self.snd("float32", mul, x, i0, u, "--reduction", "mul")

    def test_full_tuples_negative_indices(self):
        x = self.npy("x.npy", "int32", [[0, 0, 0], [0, 0, 0]])
        for idt in ("int32", "int64"):
            i = self.npy(f"i_{idt}.npy", idt, [[0, 1], [1, 2], [-1, 0], [-2, -1]])
            u = self.npy("u.npy", "int32", [5, 6, 7, 8])
            self.snd("int32", [[0, 5, 8], [7, 0, 6]], x, i, u)

    def test_reductions_with_duplicates(self):
        x = self.npy("x.npy", "int32", [1, 2, 3, 4])
        i = self.npy("i.npy", "uint64", [[1], [1], [3]])
        u = self.npy("u.npy", "int32", [10, 20, 30])
        wants = {"none": [1, 20, 3, 30], "add": [1, 32, 3, 34], "mul": [1, 400, 3, 120],
                 "min": [1, 2, 3, 4], "max": [1, 20, 3, 30]}
        for red, want in wants.items():
            self.snd("int32", want, x, i, u, "--reduction", red)
            self.snd("int32", want, x, i, u, "--reduction", red, "--deterministic")
        self.snd("int32", wants["none"], x, i, u)     # none is the default

    def test_unique_indices(self):
        # distinct targets: --unique-indices gives the exact call's answer, with and without a
        # reduction, on every backend there is
        x = self.npy("x.npy", "int32", [[1, 2], [3, 4], [5, 6], [7, 8]])
        i = self.npy("i.npy", "int64", [[3], [0], [-2]])
        u = self.npy("u.npy", "int32", [[10, 20], [30, 40], [50, 60]])
        backends = ["cpu"] + (["vulkan"] if vulkan_available() else [])
        for backend in backends:
            self.snd("int32", [[30, 40], [3, 4], [50, 60], [10, 20]], x, i, u, "--unique-indices", "--backend", backend)
            self.snd("int32", [[31, 42], [3, 4], [55, 66], [17, 28]], x, i, u, "--unique-indices",
                     "--reduction", "add", "--backend", backend)
            # scatter along axis 1, each row's indices distinct
            ia = self.npy("ia.npy", "int32", [[1, 0], [0, 1], [1, 0], [0, 1]])
            self.op("int32", [[20, 10], [30, 40], [60, 50], [70, 80]], "scatter", "--input", x, "--indices", ia,
                    "--updates", self.npy("ua.npy", "int32", [[10, 20], [30, 40], [50, 60], [70, 80]]),
                    "--axis", 1, "--unique-indices", "--backend", backend)
            # a false promise: the repeated row holds one of its updates' elements, the rest as exact
            ir = self.npy("ir.npy", "int64", [[1], [1], [2]])
            out = self.path("out.npy")
            if out.exists():
                out.unlink()
            self.run_ok("scatter-nd", "--input", x, "--indices", ir, "--updates", u, "--unique-indices",
                        "--backend", backend, "--output", out)
            _, _, shape, got = read_npy(out)
            self.assertEqual(shape, (4, 2))
            self.assertEqual(got[0:2], [1, 2])
            self.assertIn(got[2], (10, 30))
            self.assertIn(got[3], (20, 40))
            self.assertEqual(got[4:], [50, 60, 7, 8])

    def test_integer_wraparound(self):
        x = self.npy("x.npy", "int8", [100, -100])
        i = self.npy("i.npy", "int32", [[0], [0], [1]])
        u = self.npy("u.npy", "int8", [100, 100, -100])
        self.snd("int8", [44, 56], x, i, u, "--reduction", "add")
        xu = self.npy("xu.npy", "uint8", [200])
        iu = self.npy("iu.npy", "int32", [[0], [0]])
        self.snd("uint8", [176], xu, iu, self.npy("uu.npy", "uint8", [2, 3]), "--reduction", "mul")
        x64 = self.npy("x64.npy", "int64", [2 ** 62, -(2 ** 63)])
        i64 = self.npy("i64.npy", "int64", [[0], [1]])
        self.snd("int64", [0, 0], x64, i64, self.npy("u64.npy", "int64", [4, 2]), "--reduction", "mul")
        xq = self.npy("xq.npy", "uint64", [2 ** 64 - 1])
        self.snd("uint64", [1], xq, self.npy("iq.npy", "int64", [[0]]),
                 self.npy("uq.npy", "uint64", [2]), "--reduction", "add")

    def test_float16_add_rounds_after_each_update(self):
        # 2048 + 1 = 2049 is a tie in float16 and rounds to even (2048), twice;
        # adding the updates first (2) would give 2050
        x = self.npy("x.npy", "float16", [2048, 2048])
        i = self.npy("i.npy", "int32", [[0], [0], [1]])
        u = self.npy("u.npy", "float16", [1, 1, 2])
        self.snd("float16", [2048, 2050], x, i, u, "--reduction", "add")
        self.snd("float16", [2048, 2050], x, i, u, "--reduction", "add", "--deterministic")

    def test_float_min_max_rules(self):
        for dtype in ("float16", "float32", "float64"):
            nan_a, nan_b = quiet_nan(dtype, 1), quiet_nan(dtype, 2, negative=True)
            nan_c = quiet_nan(dtype, 3)
            def b(v, dtype=dtype):
                return float_bits(dtype, v)
            neg0, pos0 = b(-0.0), b(0.0)
            x = self.npy_bits("x.npy", dtype, [nan_a, b(1.0), neg0, pos0, b(5.0), b(1.0)], (6,))
            i = self.npy("i.npy", "int32", [[0], [1], [1], [2], [3], [4], [4], [5], [5]])
            u = self.npy_bits("u.npy", dtype, [b(5.0), nan_b, b(0.5), pos0, neg0, nan_c, b(7.0),
                                               b(3.0), b(0.25)], (9,))
            out = self.path("out.npy")
            for red, want in (("min", [nan_a, nan_b, neg0, neg0, nan_c, b(0.25)]),
                              ("max", [nan_a, nan_b, pos0, pos0, nan_c, b(3.0)])):
                for det in ([], ["--deterministic"]):
                    if out.exists():
                        out.unlink()
                    self.run_ok("scatter-nd", "--input", x, "--indices", i, "--updates", u,
                                "--reduction", red, *det, "--output", out)
                    self.check_bits(out, dtype, want, (6,))
                    if out.exists():
                        out.unlink()
                    # the same through scatter (elements) on axis 0
                    flat = self.npy("flat.npy", "int32", [0, 1, 1, 2, 3, 4, 4, 5, 5])
                    self.run_ok("scatter", "--input", x, "--indices", flat, "--updates", u,
                                "--axis", 0, "--reduction", red, *det, "--output", out)
                    self.check_bits(out, dtype, want, (6,))

    def test_clamp_policy(self):
        x = self.npy("x.npy", "int32", [0, 0, 0])
        i = self.npy("i.npy", "int64", [[5], [-7]])
        u = self.npy("u.npy", "int32", [1, 2])
        self.snd("int32", [2, 0, 1], x, i, u, "--out-of-range", "clamp")


class ScatterReductionTests(FamilyCase):
    X = [[1, 2, 3, 4, 5]]

    def red(self, expected, reduction, *extra):
        x = self.npy("x.npy", "float32", self.X)
        i = self.npy("i.npy", "int64", [[1, 1]])
        u = self.npy("u.npy", "float32", [[1.1, 2.1]])
        return self.op("float32", expected, "scatter", "--input", x, "--indices", i,
                       "--updates", u, "--axis", 1, "--reduction", reduction, *extra)

    def test_onnx_examples(self):
        a, b = f32(1.1), f32(2.1)
        self.red([[1, f32(f32(2 + a) + b), 3, 4, 5]], "add")
        self.red([[1, f32(f32(2 * a) * b), 3, 4, 5]], "mul")
        self.red([[1, a, 3, 4, 5]], "min")
        self.red([[1, b, 3, 4, 5]], "max")
        self.red([[1, b, 3, 4, 5]], "none")
        self.red([[1, f32(f32(2 + a) + b), 3, 4, 5]], "add", "--deterministic")

    def test_rows_accumulate_in_row_major_order(self):
        x = self.npy("x.npy", "int64", [[1, 2], [3, 4]])
        i = self.npy("i.npy", "uint32", [[1, 0], [1, 1]])
        u = self.npy("u.npy", "int64", [[10, 20], [30, 40]])
        common = ["scatter", "--input", x, "--indices", i, "--updates", u, "--axis", 0]
        self.op("int64", [[1, 22], [43, 44]], *common, "--reduction", "add")
        self.op("int64", [[1, 40], [900, 160]], *common, "--reduction", "mul")
        self.op("int64", [[1, 2], [3, 4]], *common, "--reduction", "min")
        self.op("int64", [[1, 20], [30, 40]], *common, "--reduction", "max")
        self.op("int64", [[1, 20], [30, 40]], *common, "--reduction", "none")

    def test_clamp_with_reduction(self):
        x = self.npy("x.npy", "uint16", [1, 1, 1])
        i = self.npy("i.npy", "int32", [9, -9, 2])
        u = self.npy("u.npy", "uint16", [5, 6, 7])
        self.op("uint16", [7, 1, 13], "scatter", "--input", x, "--indices", i, "--updates", u,
                "--axis", 0, "--reduction", "add", "--out-of-range", "clamp")


class RankZeroAndEmptyTests(FamilyCase):
    def test_rank0_index_removes_the_axis(self):
        x = self.npy("x.npy", "float32", [11, 12, 13, 14])
        for idt in INDEX_TYPES:
            i = self.npy(f"i_{idt}.npy", idt, 2)
            self.op("float32", 13, "gather", "--input", x, "--indices", i, "--axis", 0)
        x2 = self.npy("x2.npy", "int16", [[1, 2, 3], [4, 5, 6]])
        i1 = self.npy("i1.npy", "int64", 1)
        self.op("int16", [2, 5], "gather", "--input", x2, "--indices", i1, "--axis", 1)
        self.op("int16", [4, 5, 6], "gather", "--input", x2, "--indices", i1, "--axis", 0)
        neg = self.npy("neg.npy", "int32", -1)
        self.op("int16", [3, 6], "gather", "--input", x2, "--indices", neg, "--axis", -1)

    def test_gather_nd_full_tuple_gives_a_scalar(self):
        x2 = self.npy("x2.npy", "float64", [[1, 2], [3, 4]])
        self.op("float64", 3, "gather-nd", "--input", x2, "--indices",
                self.npy("t.npy", "int64", [1, 0]))

    def test_zero_indices_and_empty_inputs(self):
        x2 = self.npy("x2.npy", "uint32", [[1, 2], [3, 4]])
        none = self.npy("none.npy", "int64", [])
        self.op("uint32", [], "gather", "--input", x2, "--indices", none, "--axis", 0,
                shape=(0, 2))
        self.op("uint32", [], "gather", "--input", x2, "--indices", none, "--axis", 1,
                shape=(2, 0))
        empty = self.npy("empty.npy", "uint32", [], shape=(2, 0))
        self.op("uint32", [[1, 2], [3, 4]], "join", "--input", empty, "--input", x2, "--axis", 1)
        self.op("uint32", [[1, 2], [3, 4]], "join", "--input", x2, "--input", empty, "--axis", -1)
        self.op("uint32", [[1, 2], [3, 4]], "scatter-nd", "--input", x2, "--indices",
                self.npy("ni.npy", "int32", [], shape=(0, 1)), "--updates",
                self.npy("nu.npy", "uint32", [], shape=(0, 2)), "--reduction", "mul")
        self.op("uint32", [], "pad", "--input", empty, "--mode", "constant", "--start", "0,0",
                "--end", "1,0", shape=(3, 0))


class PadWrapCropTests(FamilyCase):
    def test_wrap(self):
        x = self.npy("x.npy", "int32", [1, 2, 3])
        self.op("int32", [2, 3, 1, 2, 3, 1, 2, 3, 1], "pad", "--input", x, "--mode", "wrap",
                "--start", 2, "--end", 4)
        x2 = self.npy("x2.npy", "float16", [1, 2])
        self.op("float16", [2, 1, 2, 1, 2, 1, 2, 1, 2, 1], "pad", "--input", x2, "--mode", "wrap",
                "--start", 5, "--end", 3)
        x22 = self.npy("x22.npy", "uint8", [[1, 2], [3, 4]])
        self.op("uint8", [[4, 3, 4, 3], [2, 1, 2, 1], [4, 3, 4, 3]], "pad", "--input", x22,
                "--mode", "wrap", "--start", "1,1", "--end", "0,1")
        one = self.npy("one.npy", "int8", [[-5]])
        self.op("int8", [[-5] * 4] * 3, "pad", "--input", one, "--mode", "wrap",
                "--start", "1,3", "--end", "1,0")

    def test_negative_pads_crop(self):
        x = self.npy("x.npy", "int32", [1, 2, 3, 4, 5])
        cases = [("constant", -1, -2, [2, 3]),
                 ("reflect", -2, 3, [3, 4, 5, 4, 3, 4]),
                 ("edge", 1, -3, [1, 1, 2]),
                 ("wrap", 2, -2, [2, 3, 1, 2, 3]),
                 ("symmetric", -1, 2, [2, 3, 4, 5, 5, 4]),
                 ("constant", -2, -3, []),
                 ("wrap", -5, 0, [])]
        for mode, start, end, want in cases:
            self.op("int32", want, "pad", "--input", x, "--mode", mode, "--start", start,
                    "--end", end)
        self.op("int32", [7, 7], "pad", "--input", x, "--mode", "constant", "--start", -5,
                "--end", 2, "--value", 7)
        x3 = self.npy("x3.npy", "float64", [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        self.op("float64", [[0, 4, 5], [0, 7, 8]], "pad", "--input", x3, "--mode", "constant",
                "--start", "-1,1", "--end", "0,-1")
        self.op("float64", [[5, 4, 5], [8, 7, 8]], "pad", "--input", x3, "--mode", "reflect",
                "--start", "-1,1", "--end", "0,-1")


class CommandTests(ToolCase):
    def test_help(self):
        proc = self.run_ok("--help")
        self.assertTrue(text(proc.stdout + proc.stderr).strip())
        for op in ("gather", "join", "pad", "scatter"):
            proc = self.run_ok(op, "--help")
            self.assertIn(op, text(proc.stdout + proc.stderr).lower())

    def test_help_of_the_family(self):
        listing = text(self.run_ok("--help").stdout).lower()
        for op, words in (("gather-elements", ["--axis", "--indices"]),
                          ("gather-nd", ["--batch-dimensions", "--indices"]),
                          ("split", ["--sizes", "--axis", "--output"]),
                          ("scatter-nd", ["--reduction", "--deterministic", "--unique-indices", "--updates"]),
                          ("scatter", ["--reduction", "--deterministic", "--unique-indices"]),
                          ("pad", ["wrap"])):
            self.assertIn(op, listing, f"strix --help does not list {op}")
            proc = self.run_ok(op, "--help")
            out = text(proc.stdout + proc.stderr).lower()
            self.assertIn(op, out)
            for w in words:
                self.assertIn(w, out, f"strix {op} --help does not mention {w}")
            # --help wins over any other argument
            self.run_ok(op, "--input", "nowhere.npy", "--help")

    def test_devices(self):
        proc = self.run_ok("devices")
        self.assertIn("cpu", text(proc.stdout).lower())
        types = [l for l in text(proc.stdout).splitlines() if l.startswith("element types")]
        self.assertEqual(len(types), 1)
        for name in ("float64", "uint8", "bfloat16", "bool", "float8_e4m3fn", "float8_e5m2"):
            self.assertIn(" " + name, types[0])

    def test_demo(self):
        proc = self.run_ok("demo")
        out = text(proc.stdout).lower()
        self.assertTrue(out.strip())
        for op in ("gather", "join", "pad", "scatter"):
            self.assertIn(op, out)
        # the CPU alone: the same examples, no Vulkan line
        cpu = text(self.run_ok("demo", "--backend", "cpu").stdout).lower()
        self.assertIn("on the cpu", cpu)
        self.assertNotIn("vulkan:", cpu)
        for op in ("gather", "join", "pad", "scatter"):
            self.assertIn(op, cpu)
        # --help prints the usage instead of running the demo
        self.assertIn("usage", text(self.run_ok("demo", "--help").stdout).lower())


# --------------------------------------------------------------------------
# bad input


SENTINEL = b"pre-existing output, must not change\n"


def expect_bad(test, args, keywords, output=True):
    """args must fail with status 2 and one line on stderr holding one of the
    keywords; with output, an existing output file must keep its bytes and a
    missing one must not appear."""
    args = [str(a) for a in args]
    variants = [None]
    if output:
        variants = output_variants()
    for variant in variants:
        cmd = list(args)
        out = None
        if variant:
            out = test.path(f"out_{variant}.npy")
            if out.exists():
                out.unlink()
            if variant == "existing":
                out.write_bytes(SENTINEL)
            cmd += ["--output", str(out)]
        proc = strix(*cmd)
        where = f"strix {' '.join(cmd)}"
        err = text(proc.stderr)
        test.assertEqual(proc.returncode, 2, f"{where}: exit {proc.returncode}, stderr {err!r}")
        lines = err.splitlines()
        test.assertEqual(len(lines), 1, f"{where}: expected one line on stderr, got {err!r}")
        test.assertTrue(lines[0].strip(), f"{where}: empty message")
        low = lines[0].lower()
        test.assertTrue(any(k.lower() in low for k in keywords),
                        f"{where}: message {lines[0]!r} mentions none of {keywords}")
        if variant == "existing":
            test.assertEqual(out.read_bytes(), SENTINEL, f"{where}: changed the output file")
        elif variant == "missing":
            test.assertFalse(out.exists(), f"{where}: created the output file")


class BadInputTests(ToolCase):
    def setUp(self):
        super().setUp()
        self.x = self.npy("x.npy", "float32", X32)
        self.i = self.npy("i.npy", "int32", [[0, 1]])
        self.u = self.npy("u.npy", "float32", [[7, 8]])
        self.x4 = self.npy("x4.npy", "float32", PAD_IN)

    def bad(self, args, keywords, output=True):
        expect_bad(self, args, keywords, output)

    def test_no_arguments(self):
        self.bad([], ["usage", "operator", "missing", "strix", "help"], output=False)

    def test_demo_and_devices_arguments(self):
        self.bad(["demo", "--bogus"], ["bogus"], output=False)
        self.bad(["demo", "--backend", "tpu"], ["tpu"], output=False)
        self.bad(["demo", "--backend"], ["backend"], output=False)
        self.bad(["devices", "extra"], ["extra"], output=False)

    def test_unknown_operator(self):
        self.bad(["frobnicate", "--input", self.x], ["frobnicate"])

    def test_unknown_option(self):
        self.bad(["gather", "--input", self.x, "--indices", self.i, "--axis", 0, "--bogus", 1],
                 ["bogus"])
        self.bad(["pad", "--input", self.x, "--mode", "edge", "--start", "0,0", "--end", "0,0",
                  "--axis", 0], ["axis"])

    def test_missing_arguments(self):
        self.bad(["gather", "--input", self.x, "--axis", 0], ["indices"])
        self.bad(["gather", "--indices", self.i, "--axis", 0], ["input"])
        self.bad(["gather", "--input", self.x, "--indices", self.i], ["axis"])
        self.bad(["gather", "--input", self.x, "--indices", self.i, "--axis", 0], ["output"],
                 output=False)
        self.bad(["scatter", "--input", self.x, "--indices", self.i, "--axis", 1], ["updates"])
        self.bad(["join", "--axis", 0], ["input"])
        self.bad(["pad", "--input", self.x, "--start", "0,0", "--end", "0,0"], ["mode"])
        self.bad(["pad", "--input", self.x, "--mode", "edge", "--end", "0,0"], ["start"])
        self.bad(["gather", "--input", self.x, "--indices", self.i, "--axis"], ["axis"],
                 output=False)

    def test_bad_option_values(self):
        g = ["gather", "--input", self.x, "--indices", self.i]
        self.bad(g + ["--axis", "x"], ["axis"])
        self.bad(g + ["--axis", "1.5"], ["axis"])
        self.bad(g + ["--axis", ""], ["axis"])
        self.bad(g + ["--axis", 0, "--out-of-range", "wrap"], ["out-of-range"])
        self.bad(g + ["--axis", 0, "--backend", "abacus"], ["backend"])
        self.bad(g + ["--axis", 0, "--index-dimensions", "two"], ["index-dimensions"])
        p = ["pad", "--input", self.x, "--start", "0,1", "--end", "1,0"]
        self.bad(p + ["--mode", "wrapx"], ["mode"])
        self.bad(p + ["--mode", "constant", "--value", "nine"], ["value"])
        # finite values beyond the element type are refused; infinity itself is a value
        for value in ("1e400", "-1e400", "3.5e38"):
            self.bad(p + ["--mode", "constant", "--value", value], ["does not fit"])
        f16 = self.npy("h.npy", "float16", [[1, 2], [3, 4]])
        self.bad(["pad", "--input", f16, "--start", "0,1", "--end", "1,0", "--mode", "constant",
                  "--value", "70000"], ["does not fit"])
        self.bad(["pad", "--input", self.x, "--mode", "edge", "--start", "0,x", "--end", "0,0"],
                 ["start"])

    def test_axis_out_of_range(self):
        g = ["gather", "--input", self.x, "--indices", self.i]
        self.bad(g + ["--axis", 2], ["axis"])
        self.bad(g + ["--axis", -3], ["axis"])
        a = self.npy("a.npy", "float32", JoinTests.A)
        self.bad(["join", "--input", a, "--input", a, "--axis", 4], ["axis"])
        self.bad(["join", "--input", a, "--axis", -5], ["axis"])
        self.bad(["scatter", "--input", self.x, "--indices", self.i, "--updates", self.u,
                  "--axis", 2], ["axis"])

    def test_join_mismatch(self):
        a = self.npy("a.npy", "float32", [[[[1, 2, 3], [4, 5, 6]]]])
        b = self.npy("b.npy", "float32", [[[[7, 8, 9, 10], [11, 12, 13, 14]]]])
        keys = ["join", "shape", "size", "match", "dimension"]
        self.bad(["join", "--input", a, "--input", b, "--axis", 2], keys)
        c = self.npy("c.npy", "float32", [[[1, 2, 3], [4, 5, 6]]])
        self.bad(["join", "--input", a, "--input", c, "--axis", 3], keys + ["rank"])
        d = self.npy("d.npy", "float64", [[[[1, 2, 3], [4, 5, 6]]]])
        self.bad(["join", "--input", a, "--input", d, "--axis", 3], keys + ["type"])

    def test_pad_counts_not_matching_rank(self):
        keys = ["pad", "start", "end", "rank", "dimension"]
        self.bad(["pad", "--input", self.x4, "--mode", "constant", "--start", "1,2",
                  "--end", "3,4"], keys)
        self.bad(["pad", "--input", self.x4, "--mode", "edge", "--start", "0,0,1,2",
                  "--end", "0,0,3"], keys)

    def test_gather_scatter_rule_violations(self):
        f = self.npy("f.npy", "float32", [0, 1])
        self.bad(["gather", "--input", self.x, "--indices", f, "--axis", 0],
                 ["indices", "index", "type"])
        i8 = self.npy("i8.npy", "int8", [0, 1])
        self.bad(["gather", "--input", self.x, "--indices", i8, "--axis", 0],
                 ["indices", "index", "type"])
        # indices and updates of different shapes
        u3 = self.npy("u3.npy", "float32", [[7, 8, 9]])
        self.bad(["scatter", "--input", self.x, "--indices", self.i, "--updates", u3,
                  "--axis", 0], ["scatter", "updates", "indices", "shape"])
        # indices larger than the input off the axis
        big = self.npy("big.npy", "int32", [[0, 1, 0]])
        ubig = self.npy("ubig.npy", "float32", [[1, 2, 3]])
        self.bad(["scatter", "--input", self.x, "--indices", big, "--updates", ubig,
                  "--axis", 0], ["scatter", "updates", "indices", "shape", "size"])
        # updates of another element type
        ud = self.npy("ud.npy", "float64", [[7, 8]])
        self.bad(["scatter", "--input", self.x, "--indices", self.i, "--updates", ud,
                  "--axis", 0], ["scatter", "updates", "type"])
        # rank of the indices under --index-dimensions
        self.bad(["gather", "--input", self.x, "--indices", self.npy("v.npy", "int32", [0]),
                  "--axis", 0, "--index-dimensions", 1],
                 ["gather", "indices", "rank", "index-dimensions", "index dimensions"])

    def test_malformed_files(self):
        junk = self.path("junk.npy")
        junk.write_bytes(bytes((i * 37 + 11) % 256 for i in range(300)))
        keys = ["junk", "npy", "input", "header", "format", "read", "file"]
        self.bad(["gather", "--input", junk, "--indices", self.i, "--axis", 0], keys)
        self.bad(["gather", "--input", self.x, "--indices", junk, "--axis", 0],
                 keys + ["indices"])
        whole = Path(self.x).read_bytes()
        cut = self.path("cut.npy")
        cut.write_bytes(whole[:-5])
        keys = ["cut", "npy", "input", "truncat", "short", "size", "data", "read", "file"]
        self.bad(["pad", "--input", cut, "--mode", "edge", "--start", "0,0", "--end", "1,1"],
                 keys)
        self.bad(["join", "--input", self.x, "--input", cut, "--axis", 0], keys)
        half = self.path("half.npy")
        half.write_bytes(whole[:20])
        self.bad(["join", "--input", half, "--axis", 0], ["half", "npy", "input", "header",
                                                          "truncat", "read", "file"])
        empty = self.path("empty.npy")
        empty.write_bytes(b"")
        self.bad(["join", "--input", empty, "--axis", 0], ["empty", "npy", "input", "header",
                                                           "truncat", "read", "file"])
        # a well-formed file of an element type the tool does not take
        cplx = self.path("cplx.npy")
        cplx.write_bytes(npy_bytes("<c8", (2,), b"\0" * 16))
        self.bad(["join", "--input", cplx, "--axis", 0], ["cplx", "type", "dtype", "c8",
                                                          "input", "element"])

    def test_missing_input_file(self):
        gone = self.path("does-not-exist.npy")
        self.bad(["gather", "--input", gone, "--indices", self.i, "--axis", 0],
                 ["does-not-exist", "input", "open", "exist", "no such"])
        self.bad(["scatter", "--input", self.x, "--indices", self.i, "--updates", gone,
                  "--axis", 0], ["does-not-exist", "updates", "open", "exist", "no such"])

    def test_unwritable_output(self):
        proc = strix("join", "--input", self.x, "--axis", 0,
                     "--output", self.path("no-such-dir") / "out.npy")
        self.assertEqual(proc.returncode, 2, text(proc.stderr))
        self.assertEqual(len(text(proc.stderr).splitlines()), 1, text(proc.stderr))

    def test_out_of_range_index(self):
        x = self.npy("x1.npy", "float32", [11, 12, 13, 14])
        keys = ["range", "index", "indices"]
        for idt, bad_index in (("uint32", 4), ("int32", -5), ("int64", 2 ** 40), ("uint64", 2 ** 64 - 1)):
            i = self.npy(f"i_{idt}.npy", idt, [0, bad_index, 1])
            self.bad(["gather", "--input", x, "--indices", i, "--axis", 0], keys)
            self.bad(["gather", "--input", x, "--indices", i, "--axis", 0,
                      "--out-of-range", "error"], keys)
            self.bad(["scatter", "--input", x, "--indices", i, "--updates",
                      self.npy("u3.npy", "float32", [1, 2, 3]), "--axis", 0], keys)
        dml = self.npy("dml.npy", "uint32", [[0, 3]])
        self.bad(["gather", "--input", self.x, "--indices", dml, "--axis", 0,
                  "--index-dimensions", 1], keys)


def squash(s):
    """Lower case letters and digits only, so that 'gather-nd', 'gather_nd'
    and 'GatherND' all read 'gathernd'."""
    return "".join(c for c in str(s).lower() if c.isalnum())


def expect_refused(test, op, args, keywords=(), outputs=1, named=True):
    """expect_bad for the operators of the family: status 2, one line on
    stderr that names the operator (unless named is false) and holds one of
    the keywords, if any, and every one of the `outputs` --output files left
    as it was: an existing one keeps its bytes, a missing one does not
    appear."""
    args = [str(a) for a in args]
    for variant in output_variants():
        paths = [test.path(f"out{j}_{variant}.npy") for j in range(outputs)]
        cmd = list(args)
        for p in paths:
            if p.exists():
                p.unlink()
            if variant == "existing":
                p.write_bytes(SENTINEL)
            cmd += ["--output", str(p)]
        proc = strix(*cmd)
        where = f"strix {' '.join(cmd)}"
        err = text(proc.stderr)
        test.assertEqual(proc.returncode, 2, f"{where}: exit {proc.returncode}, stderr {err!r}")
        lines = err.splitlines()
        test.assertEqual(len(lines), 1, f"{where}: expected one line on stderr, got {err!r}")
        if named:
            test.assertIn(squash(op), squash(lines[0]),
                          f"{where}: message {lines[0]!r} does not name {op}")
        if keywords:
            low = lines[0].lower()
            test.assertTrue(any(k.lower() in low for k in keywords),
                            f"{where}: message {lines[0]!r} mentions none of {list(keywords)}")
        for p in paths:
            if variant == "existing":
                test.assertEqual(p.read_bytes(), SENTINEL, f"{where}: changed {p.name}")
            else:
                test.assertFalse(p.exists(), f"{where}: created {p.name}")


class FamilyBadInputTests(ToolCase):
    def setUp(self):
        super().setUp()
        self.x = self.npy("x.npy", "float32", X32)              # 3 x 2
        self.x6 = self.npy("x6.npy", "float32", [1, 2, 3, 4, 5, 6])
        self.x3 = self.npy("x3.npy", "float32", GatherNDTests.D3)   # 2 x 2 x 2

    def refused(self, op, args, keywords=(), outputs=1, named=True):
        expect_refused(self, op, [op, *args], keywords, outputs, named)

    def test_split_sizes_not_adding_up(self):
        keys = ["size", "sum", "add"]
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "2,3"], keys, outputs=2)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "4,4"], keys, outputs=2)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "7"], keys)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "0,0,0"], keys, outputs=3)
        self.refused("split", ["--input", self.x, "--axis", 1, "--sizes", "1,2"], keys, outputs=2)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "-1,7"],
                     ["negative", "size"], outputs=2)

    def test_split_output_count(self):
        keys = ["output", "size"]
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "2,4"], keys, outputs=1)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "6"], keys, outputs=2)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "2,4,0"], keys, outputs=2)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "1,1,4"], keys, outputs=4)
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "6"], ["output"],
                     outputs=0)

    def test_split_writes_all_outputs_or_none(self):
        # the second output cannot be written: the first must not appear or change either
        first = self.path("first.npy")
        for existing in (False, True):
            if first.exists():
                first.unlink()
            if existing:
                first.write_bytes(SENTINEL)
            proc = strix("split", "--input", self.x6, "--axis", 0, "--sizes", "2,4",
                         "--output", first, "--output", self.path("no-such-dir") / "second.npy")
            self.assertEqual(proc.returncode, 2, text(proc.stderr))
            self.assertEqual(len(text(proc.stderr).splitlines()), 1, text(proc.stderr))
            if existing:
                self.assertEqual(first.read_bytes(), SENTINEL, "split changed its first output")
            else:
                self.assertFalse(first.exists(), "split wrote its first output alone")
        self.assertEqual(sorted(p.name for p in self.dir.iterdir() if "first" in p.name or
                                "second" in p.name or "partial" in p.name), ["first.npy"],
                         "split left files behind")
        # one file named twice
        first.unlink()
        proc = strix("split", "--input", self.x6, "--axis", 0, "--sizes", "2,4",
                     "--output", first, "--output", first)
        self.assertEqual(proc.returncode, 2, text(proc.stderr))
        self.assertEqual(len(text(proc.stderr).splitlines()), 1, text(proc.stderr))
        self.assertFalse(first.exists(), "split wrote a file named twice")

    def test_split_bad_options(self):
        self.refused("split", ["--input", self.x6, "--axis", 0, "--sizes", "2,x"], ["sizes"],
                     outputs=2)
        self.refused("split", ["--input", self.x6, "--axis", 0], ["sizes"])
        self.refused("split", ["--input", self.x6, "--sizes", "6"], ["axis"])
        self.refused("split", ["--input", self.x6, "--axis", 1, "--sizes", "6"], ["axis"])
        self.refused("split", ["--axis", 0, "--sizes", "6"], ["input"])

    def test_bad_reduction(self):
        i = self.npy("i.npy", "int32", [[0, 1]])
        u = self.npy("u.npy", "float32", [[7, 8]])
        for value in ("sum", "mean", "", "add,mul"):
            self.refused("scatter", ["--input", self.x, "--indices", i, "--updates", u,
                                     "--axis", 0, "--reduction", value], ["reduction"])
        ind = self.npy("ind.npy", "int64", [[1, 0]])
        u1 = self.npy("u1.npy", "float32", [7])
        for value in ("sum", "MEAN", "none "):
            self.refused("scatter-nd", ["--input", self.x, "--indices", ind, "--updates", u1,
                                        "--reduction", value], ["reduction"])
        # the reduction belongs to the scatters only
        self.refused("gather", ["--input", self.x, "--indices", i, "--axis", 0,
                                "--reduction", "add"], ["reduction"])
        self.refused("gather-nd", ["--input", self.x, "--indices", ind, "--deterministic"],
                     ["deterministic"])
        self.refused("gather-nd", ["--input", self.x, "--indices", ind, "--unique-indices"],
                     ["unique-indices"])

    def test_bad_batch_dimensions(self):
        ind = self.npy("ind.npy", "int64", [[1], [0]])
        g = ["--input", self.x3, "--indices", ind]
        self.refused("gather-nd", g + ["--batch-dimensions", "x"], ["batch"])
        self.refused("gather-nd", g + ["--batch-dimensions", "1.5"], ["batch"])
        self.refused("gather-nd", g + ["--batch-dimensions", "-1"], ["batch"])
        # as many batch dimensions as the indices have leaves no index tuple
        self.refused("gather-nd", g + ["--batch-dimensions", "2"], ["batch", "rank", "dimension"])
        self.refused("gather-nd", g + ["--batch-dimensions", "3"], ["batch", "rank", "dimension"])
        # the indices' leading dimensions must equal the input's
        bad = self.npy("bad.npy", "int64", [[1], [0], [1]])
        self.refused("gather-nd", ["--input", self.x3, "--indices", bad, "--batch-dimensions", 1],
                     ["batch", "size", "dimension", "shape"])
        # tuples longer than the dimensions left after the batch ones
        long = self.npy("long.npy", "int64", [[0, 0, 0], [1, 1, 1]])
        self.refused("gather-nd", ["--input", self.x3, "--indices", long, "--batch-dimensions", 1],
                     ["indices", "rank", "dimension", "tuple", "last"])
        longer = self.npy("longer.npy", "int64", [[0, 0, 0, 0]])
        self.refused("gather-nd", ["--input", self.x3, "--indices", longer],
                     ["indices", "rank", "dimension", "tuple", "last"])

    def test_crop_beyond_the_axis(self):
        keys = ["pad", "crop", "negative", "remove"]
        for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
            self.refused("pad", ["--input", self.x6, "--mode", mode, "--start", -4, "--end", -3], keys)
            self.refused("pad", ["--input", self.x6, "--mode", mode, "--start", -7, "--end", 2], keys)
            self.refused("pad", ["--input", self.x6, "--mode", mode, "--start", 0, "--end", -7], keys)
            self.refused("pad", ["--input", self.x, "--mode", mode, "--start", "0,-1",
                                 "--end", "1,-2"], keys)

    def test_out_of_range_index(self):
        keys = ["range", "index", "indices"]
        x1 = self.npy("x1.npy", "float32", [11, 12, 13, 14])
        for idt, bad_index in (("uint32", 4), ("int32", -5), ("int64", 2 ** 40),
                               ("uint64", 2 ** 64 - 1)):
            for policy in ([], ["--out-of-range", "error"]):
                i = self.npy(f"i_{idt}.npy", idt, [0, bad_index, 1])
                self.refused("gather-elements", ["--input", x1, "--indices", i, "--axis", 0,
                                                 *policy], keys)
                nd = self.npy(f"nd_{idt}.npy", idt, [[0], [bad_index], [1]])
                self.refused("gather-nd", ["--input", x1, "--indices", nd, *policy], keys)
                u3 = self.npy("u3.npy", "float32", [1, 2, 3])
                self.refused("scatter-nd", ["--input", x1, "--indices", nd, "--updates", u3,
                                            *policy], keys)
                self.refused("scatter-nd", ["--input", x1, "--indices", nd, "--updates", u3,
                                            "--reduction", "add", *policy], keys)
        # a bad second component of an index tuple
        t = self.npy("t.npy", "int64", [[0, 1], [1, 2]])
        self.refused("gather-nd", ["--input", self.x, "--indices", t], keys)
        self.refused("scatter-nd", ["--input", self.x, "--indices", t, "--updates",
                                    self.npy("u2.npy", "float32", [5, 6])], keys)

    def test_shape_and_type_rules(self):
        # gather-elements: indices of another rank, or larger than the input off the axis
        self.refused("gather-elements", ["--input", self.x, "--indices",
                                         self.npy("r1.npy", "int32", [0, 1]), "--axis", 0],
                     ["rank", "indices", "shape"])
        self.refused("gather-elements", ["--input", self.x, "--indices",
                                         self.npy("wide.npy", "int32", [[0, 1, 0]]), "--axis", 0],
                     ["size", "indices", "shape", "larger"])
        self.refused("gather-elements", ["--input", self.x, "--indices",
                                         self.npy("f.npy", "float32", [[0, 1]]), "--axis", 0],
                     ["type", "indices", "index"])
        self.refused("gather-elements", ["--input", self.x, "--indices",
                                         self.npy("ok.npy", "int32", [[0, 1]]), "--axis", 2],
                     ["axis"])
        # gather-nd: index elements of a non-index type
        self.refused("gather-nd", ["--input", self.x, "--indices",
                                   self.npy("i8.npy", "int8", [[0, 1]])], ["type", "indices", "index"])
        # scatter-nd: updates of the wrong shape or element type
        ind = self.npy("ind.npy", "int64", [[1], [0]])
        self.refused("scatter-nd", ["--input", self.x, "--indices", ind, "--updates",
                                    self.npy("u6.npy", "float32", [1, 2, 3, 4, 5, 6])],
                     ["updates", "shape", "size"])
        self.refused("scatter-nd", ["--input", self.x, "--indices", ind, "--updates",
                                    self.npy("ud.npy", "float64", [[1, 2], [3, 4]])],
                     ["updates", "type"])
        self.refused("scatter-nd", ["--input", self.x, "--indices", ind], ["updates"])

    def test_missing_input_file(self):
        # the message names the file and the operator
        gone = self.path("does-not-exist.npy")
        keys = ["does-not-exist", "open", "exist", "no such"]
        self.refused("split", ["--input", gone, "--axis", 0, "--sizes", "1,1"], keys, outputs=2)
        self.refused("gather-nd", ["--input", self.x, "--indices", gone], keys)
        self.refused("scatter-nd", ["--input", self.x, "--indices", gone, "--updates", gone],
                     keys)



# --------------------------------------------------------------------------
# how the outputs are written: all or none, under fresh temporary names, through
# links, into devices and FIFOs in place, and a clear message when memory runs out


def leftovers(directory, expected):
    """The names in directory beyond the expected ones (temporary files left behind)."""
    return sorted(set(p.name for p in Path(directory).iterdir()) - set(expected))


class OutputFileTests(ToolCase):
    def setUp(self):
        super().setUp()
        self.x6 = self.npy("x6.npy", "float32", [1, 2, 3, 4, 5, 6])

    def split(self, *outputs):
        cmd = ["split", "--input", self.x6, "--axis", 0, "--sizes",
               ",".join(["2", "4", "0"][:len(outputs)])]
        for o in outputs:
            cmd += ["--output", o]
        return strix(*cmd)

    def reference(self, name, args, dtype, expected):
        """The bytes the tool writes for args into a plain new file, checked against the
        expected values."""
        out = self.path(name)
        self.run_ok(*args, "--output", out)
        self.check_output(out, dtype, expected)
        data = out.read_bytes()
        out.unlink()
        return data

    def check_refused(self, proc):
        err = text(proc.stderr)
        self.assertEqual(proc.returncode, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        return err

    def device_node(self, name, minor):
        """A character device of the memory driver (3: null, 7: full) made in the test
        folder, or /dev's own where the test may not make one and cannot replace it."""
        node = self.path(name)
        try:
            os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            with open(node, "wb"):
                pass
            return node
        except OSError:
            if node.exists():
                node.unlink()
        if not os.access("/dev", os.W_OK) and os.path.exists(f"/dev/{name}"):
            return Path(f"/dev/{name}")
        self.skipTest("cannot make a device node here")

    def test_split_puts_back_what_it_replaced_when_a_later_output_fails(self):
        # the device that is always full takes the last output, after the first was renamed
        # into place: the first must be put back as it was (or removed, when it was new)
        full = self.device_node("full", 7)
        first = self.path("first.npy")
        for existing in (True, False):
            if existing:
                first.write_bytes(SENTINEL)
            elif first.exists():
                first.unlink()
            err = self.check_refused(self.split(first, full))
            self.assertIn("full", err)
            self.assertTrue(stat.S_ISCHR(os.stat(full).st_mode), "split replaced the device")
            if existing:
                self.assertEqual(first.read_bytes(), SENTINEL, "split changed its first output")
            else:
                self.assertFalse(first.exists(), "split wrote its first output alone")
            self.assertEqual(leftovers(self.dir, ["x6.npy", "first.npy", "full"]), [])

    def test_split_changes_nothing_when_an_output_is_a_directory(self):
        first, second = self.path("first.npy"), self.path("second.npy")
        (self.dir / "dir.npy").mkdir()
        for order in ((first, self.dir / "dir.npy"), (self.dir / "dir.npy", first),
                      (first, second, self.dir / "dir.npy")):
            first.write_bytes(SENTINEL)
            if second.exists():
                second.unlink()
            err = self.check_refused(self.split(*order))
            self.assertIn("dir.npy", err)
            self.assertTrue(err.startswith("strix split: "), f"{err!r} does not name split")
            self.assertEqual(first.read_bytes(), SENTINEL, "split changed an output")
            self.assertFalse(second.exists(), "split wrote an output alone")
            self.assertTrue((self.dir / "dir.npy").is_dir())
            self.assertEqual(leftovers(self.dir, ["x6.npy", "first.npy", "dir.npy"]), [])

    def test_every_operator_names_itself_when_an_output_or_input_file_fails(self):
        # the files' own errors (reading an input, writing an output) name the operator as
        # every other error line does, whichever operator meets them
        (self.dir / "dir.npy").mkdir()
        i = self.npy("i.npy", "int32", [0, 1])
        gone = self.path("gone.npy")
        commands = {
            "gather": ["--input", self.x6, "--indices", i, "--axis", 0],
            "join": ["--input", self.x6, "--axis", 0],
            "pad": ["--input", self.x6, "--mode", "edge", "--start", 1, "--end", 0],
            "gather-elements": ["--input", self.x6, "--indices", i, "--axis", 0],
            "split": ["--input", self.x6, "--axis", 0, "--sizes", "2,4"],
        }
        for op, args in commands.items():
            outputs = [self.path("ok.npy")] * (op == "split") + [self.dir / "dir.npy"]
            for where, cmd in (("output", args), ("input", [gone if a == self.x6 else a for a in args])):
                full = [op, *cmd]
                for o in outputs:
                    full += ["--output", o]
                err = self.check_refused(strix(*full)).strip()
                self.assertTrue(err.startswith(f"strix {op}: "), f"{where} error {err!r} does not name {op}")
                self.assertIn("dir.npy" if where == "output" else "gone.npy", err)
            self.assertEqual(leftovers(self.dir, ["x6.npy", "i.npy", "dir.npy"]), [])

    def test_a_file_of_the_old_temporary_name_is_kept(self):
        out = self.path("out.npy")
        mine = self.path("out.npy.strix-partial")
        mine.write_bytes(SENTINEL)
        self.run_ok("split", "--input", self.x6, "--axis", 0, "--sizes", "6", "--output", out)
        self.check_output(out, "float32", [1, 2, 3, 4, 5, 6])
        self.assertEqual(mine.read_bytes(), SENTINEL, "the tool replaced a file it did not make")
        self.run_ok("join", "--input", self.x6, "--axis", 0, "--output", out)
        self.assertEqual(mine.read_bytes(), SENTINEL, "the tool replaced a file it did not make")
        self.assertEqual(leftovers(self.dir, ["x6.npy", "out.npy", "out.npy.strix-partial"]), [])

    def test_the_longest_legal_output_names(self):
        limit = os.pathconf(self.dir, "PC_NAME_MAX")
        for length in (limit - 27, limit):
            a = self.path("a" * (length - 4) + ".npy")
            b = self.path("b" * (length - 4) + ".npy")
            self.run_ok("split", "--input", self.x6, "--axis", 0, "--sizes", "2,4",
                        "--output", a, "--output", b)
            self.check_output(a, "float32", [1, 2])
            self.check_output(b, "float32", [3, 4, 5, 6])
            self.run_ok("pad", "--input", self.x6, "--mode", "edge", "--start", 1, "--end", 0,
                        "--output", a)
            self.check_output(a, "float32", [1, 1, 2, 3, 4, 5, 6])
            self.assertEqual(leftovers(self.dir, ["x6.npy", a.name, b.name]), [])
            a.unlink()
            b.unlink()

    def test_concurrent_splits_to_the_same_files(self):
        # each process splits its own input; every output must end as one process's whole file
        n, size, rounds = 8, 20000, 6
        sizes = f"{size // 4},{size - size // 4}"
        inputs, expected_a, expected_b = [], set(), set()
        for k in range(n):
            values = [k * 1000000 + i for i in range(size)]
            x = self.npy(f"in{k}.npy", "int32", values)
            inputs.append(x)
            ra, rb = self.path("ra.npy"), self.path("rb.npy")
            self.run_ok("split", "--input", x, "--axis", 0, "--sizes", sizes, "--backend", "cpu",
                        "--output", ra, "--output", rb)
            self.check_output(ra, "int32", values[:size // 4])
            self.check_output(rb, "int32", values[size // 4:])
            expected_a.add(ra.read_bytes())
            expected_b.add(rb.read_bytes())
            ra.unlink()
            rb.unlink()
        a, b = self.path("a.npy"), self.path("b.npy")
        for _ in range(rounds):
            procs = [subprocess.Popen([STRIX, "split", "--input", str(x), "--axis", "0",
                                       "--sizes", sizes, "--backend", "cpu", "--output", str(a),
                                       "--output", str(b)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for x in inputs]
            for p in procs:
                _, err = p.communicate(timeout=RUN_TIMEOUT)
                self.assertEqual(p.returncode, 0, text(err))
            self.assertIn(a.read_bytes(), expected_a, "a.npy is not one process's whole output")
            self.assertIn(b.read_bytes(), expected_b, "b.npy is not one process's whole output")
            self.assertEqual(leftovers(self.dir, [x.name for x in inputs] + ["x6.npy", "a.npy",
                                                                           "b.npy"]), [])

    def test_a_link_stays_a_link(self):
        sub = self.dir / "sub"
        sub.mkdir()
        target = sub / "target.npy"
        target.write_bytes(SENTINEL)
        link = self.path("link.npy")
        os.symlink(os.path.join("sub", "target.npy"), link)     # relative, into another folder
        chain = self.path("chain.npy")
        os.symlink("link.npy", chain)                            # a link to a link
        dangling = self.path("dangling.npy")
        os.symlink(os.path.join("sub", "new.npy"), dangling)    # its target does not exist yet
        self.run_ok("pad", "--input", self.x6, "--mode", "constant", "--start", 1, "--end", 1,
                    "--output", link)
        self.check_output(target, "float32", [0, 1, 2, 3, 4, 5, 6, 0])
        self.run_ok("split", "--input", self.x6, "--axis", 0, "--sizes", "2,4",
                    "--output", chain, "--output", dangling)
        self.check_output(target, "float32", [1, 2])
        self.check_output(sub / "new.npy", "float32", [3, 4, 5, 6])
        for l, to in ((link, os.path.join("sub", "target.npy")), (chain, "link.npy"),
                      (dangling, os.path.join("sub", "new.npy"))):
            self.assertTrue(l.is_symlink(), f"{l.name} is no longer a link")
            self.assertEqual(os.readlink(l), to)
        self.assertEqual(leftovers(sub, ["target.npy", "new.npy"]), [])
        self.assertEqual(leftovers(self.dir, ["x6.npy", "sub", "link.npy", "chain.npy",
                                              "dangling.npy"]), [])
        # a loop of links is refused and stays as it was
        loop = self.path("loop.npy")
        os.symlink("loop.npy", loop)
        self.check_refused(strix("join", "--input", self.x6, "--axis", 0, "--output", loop))
        self.assertEqual(os.readlink(loop), "loop.npy")

    def test_a_fifo_is_written_in_place(self):
        fifo = self.path("pipe.npy")
        os.mkfifo(fifo)
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so the tool's open returns
        try:
            self.run_ok("join", "--input", self.x6, "--input", self.x6, "--axis", 0,
                        "--output", fifo)
            got = b""
            while True:
                try:
                    chunk = os.read(reader, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                got += chunk
        finally:
            os.close(reader)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
        self.assertEqual(got, self.reference("plain.npy", ["join", "--input", self.x6, "--input",
                                                           self.x6, "--axis", 0],
                                             "float32", [1, 2, 3, 4, 5, 6] * 2))
        self.assertEqual(leftovers(self.dir, ["x6.npy", "pipe.npy"]), [])

    def test_a_device_is_written_in_place(self):
        null = self.device_node("null", 3)
        self.run_ok("pad", "--input", self.x6, "--mode", "edge", "--start", 2, "--end", 2,
                    "--output", null)
        self.assertTrue(stat.S_ISCHR(os.stat(null).st_mode), "the device was replaced")
        full = self.device_node("full", 7)
        err = self.check_refused(strix("join", "--input", self.x6, "--axis", 0, "--output", full))
        self.assertIn("space", err.lower())
        self.assertTrue(stat.S_ISCHR(os.stat(full).st_mode), "the device was replaced")
        self.assertEqual(leftovers(self.dir, ["x6.npy", "null", "full"]), [])


MEMORY_LIMIT = 1 << 30


def limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


class OutOfMemoryTests(ToolCase):
    """The tool under a 1 GiB address-space limit, asked for more (a sanitized build, whose
    shadow memory needs more address space than that, skips them)."""

    def setUp(self):
        super().setUp()
        try:
            import resource  # noqa: F401
        except ImportError:
            self.skipTest("no resource limits on this platform")
        probe = subprocess.run([STRIX, "--help"], capture_output=True, timeout=RUN_TIMEOUT,
                               preexec_fn=limit_memory)
        if probe.returncode != 0:
            self.skipTest("the tool does not start under a 1 GiB address-space limit")

    def refused(self, args, keywords, outputs=("out.npy",)):
        for existing in (True, False):
            paths = [self.path(o) for o in outputs]
            cmd = [STRIX, *map(str, args)]
            for p in paths:
                if p.exists():
                    p.unlink()
                if existing:
                    p.write_bytes(SENTINEL)
                cmd += ["--output", str(p)]
            proc = subprocess.run(cmd, capture_output=True, timeout=RUN_TIMEOUT,
                                  preexec_fn=limit_memory)
            err = text(proc.stderr)
            self.assertEqual(proc.returncode, 2, err)
            lines = err.splitlines()
            self.assertEqual(len(lines), 1, err)
            for k in keywords:
                self.assertIn(k, lines[0])
            for p in paths:
                if existing:
                    self.assertEqual(p.read_bytes(), SENTINEL, f"changed {p.name}")
                else:
                    self.assertFalse(p.exists(), f"created {p.name}")
            self.assertEqual([n for n in os.listdir(self.dir) if n.startswith(".strix")], [])

    def test_an_output_too_large(self):
        x = self.npy("x.npy", "float32", [1, 2])
        # 2 + (2**31 - 2) float32 elements: 8 GiB
        self.refused(["pad", "--input", x, "--mode", "constant", "--start", 0,
                      "--end", 2 ** 31 - 2, "--backend", "cpu"],
                     ["strix pad: cannot allocate 8589934592 bytes for the output",
                      "[2147483648]", "float32"])
        # gather of 4 rows of a 256 MiB input (a sparse file): 1 GiB
        rows = self.path("rows.npy")
        head = npy_bytes("|u1", (1, 2 ** 28), b"")
        rows.write_bytes(head)
        with open(rows, "r+b") as f:
            f.truncate(len(head) + 2 ** 28)
        i = self.npy("i.npy", "int64", [0] * 4)
        self.refused(["gather", "--input", rows, "--indices", i, "--axis", 0, "--backend", "cpu"],
                     ["strix gather: cannot allocate 1073741824 bytes for the output",
                      "[4,268435456]", "uint8"])

    def test_an_input_too_large(self):
        # a sparse file that holds 2 GiB of float32 elements
        big = self.path("big.npy")
        head = npy_bytes("<f4", (2 ** 29,), b"")
        big.write_bytes(head)
        with open(big, "r+b") as f:
            f.truncate(len(head) + 2 ** 31)
        x = self.npy("x.npy", "float32", [1, 2])
        self.refused(["join", "--input", x, "--input", big, "--axis", 0, "--backend", "cpu"],
                     ["strix join: cannot allocate 2147483648 bytes for --input " + str(big),
                      "[536870912]", "float32"])
        self.refused(["split", "--input", big, "--axis", 0, "--sizes", f"{2 ** 28},{2 ** 28}",
                      "--backend", "cpu"],
                     ["strix split: cannot allocate 2147483648 bytes for --input"],
                     outputs=("a.npy", "b.npy"))


# --------------------------------------------------------------------------
# --as: bfloat16 and the float8 types read from files of their bits, and bool

# the descr strix writes for each type NumPy has no name for (np.save's for ml_dtypes' arrays)
AS_TYPES = {"bfloat16": ("<u2", "H", "<V2"), "float8_e4m3fn": ("|u1", "B", "<V1"),
            "float8_e5m2": ("|u1", "B", "<f1")}


def raw_npy(path):
    """(descr, shape, data bytes) of a C-order .npy file of any descr, plain Python."""
    raw = Path(path).read_bytes()
    assert raw[:6] == b"\x93NUMPY", f"{path}: not a .npy file"
    start, hlen = (10, struct.unpack("<H", raw[8:10])[0]) if raw[6] == 1 else (12, struct.unpack("<I", raw[8:12])[0])
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    assert not (header["fortran_order"] and len(header["shape"]) >= 2), f"{path}: not in C order"
    return header["descr"], tuple(header["shape"]), raw[start + hlen:]


class AsTypeTests(ToolCase):
    def bits(self, name, tname, bits, shape):
        """A file of the bits of `tname` as NumPy stores them without ml_dtypes (<u2, |u1)."""
        descr, code, _ = AS_TYPES[tname]
        path = self.path(name)
        path.write_bytes(npy_bytes(descr, shape, struct.pack("<%d%s" % (len(bits), code), *bits)))
        return path

    def check(self, path, tname, bits, shape):
        _, code, descr = AS_TYPES[tname]
        got_descr, got_shape, data = raw_npy(path)
        self.assertEqual(got_descr, descr, f"element type of {path}")
        self.assertEqual(got_shape, tuple(shape), f"shape of {path}")
        self.assertEqual([hex(b) for b in struct.unpack("<%d%s" % (len(bits), code), data)],
                         [hex(b) for b in bits], f"bits of {path}")

    def run_as(self, tname, expected, shape, *args, out="out.npy"):
        out = self.path(out)
        if out.exists():
            out.unlink()
        self.run_ok(*args, "--as", tname, "--output", out)
        self.check(out, tname, expected, shape)
        return out

    # bfloat16: 1, 2, a NaN with a payload, -inf, the smallest subnormal, -0
    BF = [0x3F80, 0x4000, 0x7FC1, 0xFF80, 0x0001, 0x8000]

    def test_gather_keeps_the_bits(self):
        x = self.bits("x.npy", "bfloat16", self.BF, (2, 3))
        i = self.npy("i.npy", "int64", [2, 0, -1])
        out = self.run_as("bfloat16", [0x7FC1, 0x3F80, 0x7FC1, 0x8000, 0xFF80, 0x8000], (2, 3),
                          "gather", "--input", x, "--indices", i, "--axis", 1)
        # the <V2 output is bfloat16 already: read again under --as, and without it
        self.run_as("bfloat16", [0x7FC1, 0x3F80, 0x8000, 0xFF80], (2, 2), "gather", "--input", out, "--indices",
                    self.npy("j.npy", "int32", [0, 1]), "--axis", 1, out="again.npy")
        self.run_ok("join", "--input", out, "--input", out, "--axis", 0, "--output", self.path("plain.npy"))
        self.check(self.path("plain.npy"), "bfloat16", [0x7FC1, 0x3F80, 0x7FC1, 0x8000, 0xFF80, 0x8000] * 2, (4, 3))

    def test_every_form_of_operator(self):
        for tname in AS_TYPES:
            e5 = tname == "float8_e5m2"
            x8 = [0x38, 0x40, 0x7F, 0xFF, 0x01, 0x80] if tname != "bfloat16" else self.BF
            x = self.bits("x.npy", tname, x8, (2, 3))
            u = self.bits("u.npy", tname, [0x11, 0x22], (1, 2))
            i = self.npy("i.npy", "int64", [[2, 0]])
            self.run_as(tname, [0x22, x8[1], 0x11] + x8[3:], (2, 3),
                        "scatter", "--input", x, "--indices", i, "--updates", u, "--axis", 1)
            self.run_as(tname, x8 + x8, (4, 3), "join", "--input", x, "--input", x, "--axis", 0)
            self.run_as(tname, x8[1:3] + x8[4:6], (2, 2), "slice", "--input", x, "--starts", "1",
                        "--ends", "3", "--axes", "1")
            self.run_as(tname, x8[3:], (1, 3), "gather-nd", "--input", x,
                        "--indices", self.npy("n.npy", "int32", [[1]]))
            out0, out1 = self.path("s0.npy"), self.path("s1.npy")
            self.run_ok("split", "--input", x, "--axis", 1, "--sizes", "1,2", "--as", tname,
                        "--output", out0, "--output", out1)
            self.check(out0, tname, [x8[0], x8[3]], (2, 1))
            self.check(out1, tname, x8[1:3] + x8[4:6], (2, 2))
            # pad's --value is rounded into the type: 1.5 is 0x3fc0, 0x3c, 0x3e
            fill = {"bfloat16": 0x3FC0, "float8_e4m3fn": 0x3C, "float8_e5m2": 0x3E}[tname]
            self.run_as(tname, [fill] + x8[:3] + [fill] + x8[3:], (2, 4), "pad", "--input", x,
                        "--mode", "constant", "--start", "0,1", "--end", "0,0", "--value", "1.5")
            # NaN is the type's canonical one; an infinity is refused where the type has none
            nan = {"bfloat16": 0x7FC0, "float8_e4m3fn": 0x7F, "float8_e5m2": 0x7F}[tname]
            self.run_as(tname, [nan] + x8[:3] + [nan] + x8[3:], (2, 4), "pad", "--input", x,
                        "--mode", "constant", "--start", "0,1", "--end", "0,0", "--value", "nan")
            refused = ["pad", "--input", x, "--mode", "constant", "--start", "0,1", "--end", "0,0",
                       "--as", tname, "--value"]
            if tname == "float8_e4m3fn":
                expect_refused(self, "pad", refused + ["inf"], ["value", "fit"])
                expect_refused(self, "pad", refused + ["465"], ["value", "fit"])
            if e5:
                self.run_as(tname, [0xFC] + x8[:3] + [0xFC] + x8[3:], (2, 4), "pad", "--input", x,
                            "--mode", "constant", "--start", "0,1", "--end", "0,0", "--value", "-inf")
            expect_refused(self, "pad", refused + ["1e39"], ["value", "fit"])

    def test_a_file_of_another_type_is_refused_by_name(self):
        i = self.npy("i.npy", "int64", [0])
        cases = [("bfloat16", self.npy("wide.npy", "uint32", [1, 2]), "uint32"),
                 ("bfloat16", self.npy("signed.npy", "int16", [1, 2]), "int16"),
                 ("bfloat16", self.npy("half.npy", "float16", [1, 2]), "float16"),
                 ("bfloat16", self.bits("narrow.npy", "float8_e4m3fn", [1, 2], (2,)), "uint8"),
                 ("float8_e4m3fn", self.bits("bf.npy", "bfloat16", [1, 2], (2,)), "uint16"),
                 ("float8_e5m2", self.npy("i8.npy", "int8", [1, 2]), "int8")]
        for tname, f, ftype in cases:
            for args in (["gather", "--input", f, "--indices", i, "--axis", 0],
                         ["join", "--input", self.bits("ok.npy", tname, [1], (1,)), "--input", f, "--axis", 0]):
                proc = strix(*args, "--as", tname, "--output", self.path("out.npy"))
                err = text(proc.stderr)
                self.assertEqual(proc.returncode, 2, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                for word in (f.name, ftype, "--as " + tname, "--input"):
                    self.assertIn(word, err, f"the message does not name {word!r}")
                self.assertFalse(self.path("out.npy").exists())
        # an updates file too, and under another operator
        x = self.bits("x.npy", "bfloat16", [1, 2], (2,))
        w = self.npy("w.npy", "float32", [7])
        proc = strix("scatter", "--input", x, "--indices", i, "--updates", w, "--axis", 0,
                     "--as", "bfloat16", "--output", self.path("out.npy"))
        self.assertEqual(proc.returncode, 2)
        for word in ("--updates", "w.npy", "float32", "--as bfloat16", "scatter"):
            self.assertIn(word, text(proc.stderr))
        # the indices are read as they are: a uint16 index file is not an index type, whatever --as says
        proc = strix("gather", "--input", x, "--indices", self.npy("i16.npy", "uint16", [0]), "--axis", 0,
                     "--as", "bfloat16", "--output", self.path("out.npy"))
        self.assertEqual(proc.returncode, 2)
        self.assertNotIn("--as", text(proc.stderr))

    def test_bad_values_of_the_option(self):
        x = self.bits("x.npy", "bfloat16", [1, 2], (2,))
        i = self.npy("i.npy", "int64", [0])
        for bad in ("float16", "bool", "bf16", "uint16", ""):
            expect_refused(self, "gather", ["gather", "--input", x, "--indices", i, "--axis", 0,
                                            "--as", bad], ["--as"])
        expect_refused(self, "gather", ["gather", "--input", x, "--indices", i, "--axis", 0,
                                        "--as", "bfloat16", "--as", "bfloat16"], ["twice"])

    def test_help_names_the_option(self):
        self.assertIn("--as bfloat16|float8_e4m3fn|float8_e5m2", text(self.run_ok("--help").stdout))
        for op in ("gather", "join", "split", "pad", "scatter", "scatter-nd", "tile"):
            self.assertIn("--as bfloat16|float8_e4m3fn|float8_e5m2", text(self.run_ok(op, "--help").stdout), op)

    def test_bool_needs_no_option(self):
        x = self.path("b.npy")
        x.write_bytes(npy_bytes("|b1", (2, 2), bytes([1, 0, 0, 1])))
        i = self.npy("i.npy", "int32", [1, 1, 0])
        self.run_ok("gather", "--input", x, "--indices", i, "--axis", 1, "--output", self.path("out.npy"))
        self.assertEqual(raw_npy(self.path("out.npy")), ("|b1", (2, 3), bytes([0, 0, 1, 1, 1, 0])))
        self.run_ok("pad", "--input", x, "--mode", "constant", "--start", "0,1", "--end", "0,0",
                    "--value", "1", "--output", self.path("pad.npy"))
        self.assertEqual(raw_npy(self.path("pad.npy")), ("|b1", (2, 3), bytes([1, 1, 0, 1, 0, 1])))
        expect_refused(self, "pad", ["pad", "--input", x, "--mode", "constant", "--start", "0,1",
                                     "--end", "0,0", "--value", "2"], ["value", "fit"])

    def test_vulkan_gives_the_same_bits(self):
        if not vulkan_available():
            self.skipTest("no Vulkan device")
        for tname in AS_TYPES:
            x = self.bits("x.npy", tname, [0x01, 0x7F, 0x80, 0xFF, 0x3C, 0x42], (3, 2))
            u = self.bits("u.npy", tname, [0x11, 0x22, 0x33], (3, 1))
            i = self.npy("i.npy", "int64", [[1], [0], [1]])
            for args in (["gather", "--input", x, "--indices", i, "--axis", 0],
                         ["scatter", "--input", x, "--indices", i, "--updates", u, "--axis", 1],
                         ["pad", "--input", x, "--mode", "constant", "--value", "-1.5", "--start", "1,0", "--end", "0,1"],
                         ["pad", "--input", x, "--mode", "reflect", "--start", "1,0", "--end", "0,1"]):
                outs = []
                for backend in ("cpu", "vulkan"):
                    out = self.path(backend + ".npy")
                    self.run_ok(*args, "--as", tname, "--backend", backend, "--output", out)
                    outs.append(raw_npy(out))
                self.assertEqual(outs[0], outs[1], f"{tname}: {args[0]}")
                self.assertEqual(outs[0][0], AS_TYPES[tname][2])


# --------------------------------------------------------------------------
# the Vulkan backend, when there is one


class BackendTests(FamilyCase):
    def compare_backends(self, args):
        cpu_out = self.path("cpu.npy")
        gpu_out = self.path("gpu.npy")
        for f in (cpu_out, gpu_out):  # (an earlier call's: a refused call must write nothing)
            if f.exists():
                f.unlink()
        self.run_ok(*args, "--backend", "cpu", "--output", cpu_out)
        proc = strix(*args, "--backend", "vulkan", "--output", gpu_out)
        if proc.returncode == 0:
            self.assertEqual(gpu_out.read_bytes(), cpu_out.read_bytes(),
                             f"vulkan and cpu differ on strix {' '.join(map(str, args))}")
            return True
        self.assertEqual(proc.returncode, 2, text(proc.stderr))
        self.assertEqual(len(text(proc.stderr).splitlines()), 1, text(proc.stderr))
        self.assertFalse(gpu_out.exists())
        return False

    def test_vulkan_matches_cpu_or_is_refused(self):
        x = self.npy("x.npy", "float32", PAD_IN)
        i = self.npy("i.npy", "int64", [3, -1, 0, 2, 2])
        u = self.npy("u.npy", "uint16", [[1, 2, 3], [4, 5, 6]])
        ui = self.npy("ui.npy", "uint32", [[1, 0, 2], [1, 1, 0]])
        uu = self.npy("uu.npy", "uint16", [[10, 20, 30], [40, 50, 60]])
        self.compare_backends(["gather", "--input", x, "--indices", i, "--axis", -1])
        self.compare_backends(["join", "--input", x, "--input", x, "--axis", 2])
        for mode in ("constant", "edge", "reflect", "symmetric"):
            value = ["--value", "9"] if mode == "constant" else []
            self.compare_backends(["pad", "--input", x, "--mode", mode, "--start", "0,0,1,2",
                                   "--end", "0,0,3,4", *value])
        self.compare_backends(["scatter", "--input", u, "--indices", ui, "--updates", uu,
                               "--axis", 1])

    def test_vulkan_family_matches_cpu_or_is_refused(self):
        x = self.npy("x.npy", "float32", PAD_IN)                      # 1 x 1 x 4 x 4
        ge_i = self.npy("ge_i.npy", "int32", [[[[3, -1, 0, 2], [1, 1, 0, 0]]]])
        self.compare_backends(["gather-elements", "--input", x, "--indices", ge_i, "--axis", -1])
        nd_i = self.npy("nd_i.npy", "int64", [[[[0, 1], [3, 2], [-1, 0]]]])
        self.compare_backends(["gather-nd", "--input", x, "--indices", nd_i,
                               "--batch-dimensions", 2])
        for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
            value = ["--value", "9"] if mode == "constant" else []
            self.compare_backends(["pad", "--input", x, "--mode", mode, "--start", "0,0,-1,5",
                                   "--end", "0,0,3,-2", *value])
        # split: every part on both backends
        parts = {}
        for be in ("cpu", "vulkan"):
            outs = [self.path(f"{be}{j}.npy") for j in range(3)]
            args = ["split", "--input", x, "--axis", 3, "--sizes", "1,0,3", "--backend", be]
            for o in outs:
                args += ["--output", o]
            proc = strix(*args)
            if be == "cpu":
                self.assertEqual(proc.returncode, 0, text(proc.stderr))
            elif proc.returncode != 0:
                self.assertEqual(proc.returncode, 2, text(proc.stderr))
                self.assertEqual(len(text(proc.stderr).splitlines()), 1, text(proc.stderr))
                self.assertFalse(any(o.exists() for o in outs))
                break
            parts[be] = [o.read_bytes() for o in outs]
        if "vulkan" in parts:
            self.assertEqual(parts["vulkan"], parts["cpu"], "split differs between the backends")
        # the reductions: float add/mul in any order needs exact data, or --deterministic
        sx = self.npy("sx.npy", "float32", [[1.5, -2, 0.1], [3, 4, 5]])
        si = self.npy("si.npy", "uint32", [[1, 0, 1], [1, 1, 0], [0, 1, 1]])
        su = self.npy("su.npy", "float32", [[0.3, 7, -1e-3], [1e8, 2, 0.7], [-0.0, 3.3, 1e-30]])
        ex = self.npy("ex.npy", "float32", [[1, -2, 3], [3, 4, 5]])
        eu = self.npy("eu.npy", "float32", [[1, 7, -1], [4, 2, 1], [0, 3, 1]])
        for red in ("none", "add", "mul", "min", "max"):
            common = ["--indices", si, "--axis", 0, "--reduction", red]
            self.compare_backends(["scatter", "--input", sx, "--updates", su, *common,
                                   "--deterministic"])
            self.compare_backends(["scatter", "--input", ex, "--updates", eu, *common])
        nx = self.npy("nx.npy", "int16", [[1, 2], [3, 4], [5, 6]])
        ni = self.npy("ni.npy", "int64", [[2], [0], [2], [-1]])
        nu = self.npy("nu.npy", "int16", [[30000, -7], [9, 9], [30000, 5], [-3, 1000]])
        for red in ("none", "add", "mul", "min", "max"):
            self.compare_backends(["scatter-nd", "--input", nx, "--indices", ni, "--updates", nu,
                                   "--reduction", red])

    def test_vulkan_refuses_what_the_cpu_refuses_with_its_message(self):
        # the shape rules are checked before the output is made, on either backend, so a
        # mistake reads the same whichever runs it
        if not vulkan_available():
            self.skipTest("no Vulkan device")
        x = self.npy("x.npy", "float32", [[1, 2, 3], [4, 5, 6]])
        y = self.npy("y.npy", "float32", [[1, 2]])
        i = self.npy("i.npy", "int64", [0, 1])
        pair = self.npy("pair.npy", "int64", [[0, 1]])
        triple = self.npy("triple.npy", "int64", [[0, 1, 0]])
        u = self.npy("u.npy", "float32", [[7, 8, 9]])
        cases = [["gather", "--input", x, "--indices", i, "--axis", 2],
                 ["gather-elements", "--input", x, "--indices", i, "--axis", 0],
                 ["gather-nd", "--input", x, "--indices", triple],
                 ["join", "--input", x, "--input", y, "--axis", 0],
                 ["split", "--input", x, "--axis", 1, "--sizes", "1,1"],
                 ["pad", "--input", x, "--mode", "constant", "--start", "1", "--end", "1"],
                 ["scatter", "--input", x, "--indices", pair, "--updates", u, "--axis", 0],
                 ["scatter-nd", "--input", x, "--indices", pair, "--updates", u]]
        for args in cases:
            messages = []
            for be in ("cpu", "vulkan"):
                outs = [self.path(f"{be}{j}.npy") for j in range(2 if args[0] == "split" else 1)]
                proc = strix(*args, "--backend", be, *[a for o in outs for a in ("--output", o)])
                err = text(proc.stderr)
                self.assertEqual(proc.returncode, 2, f"{be}: {err}")
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(f"strix::{args[0]}:", err)
                self.assertFalse(any(o.exists() for o in outs))
                messages.append(err)
            self.assertEqual(messages[1], messages[0], f"strix {args[0]}: the backends word it differently")

    def test_vulkan_deterministic_keeps_the_cpus_nan_bits(self):
        # --deterministic promises the CPU's bits, NaN payloads and signs included, also
        # where a NaN meets a NaN in add/mul
        for dtype in ("float16", "float32", "float64"):
            one = float_bits(dtype, 1.0)
            x = self.npy_bits(f"x_{dtype}.npy", dtype,
                              [quiet_nan(dtype, 1), quiet_nan(dtype, 4, negative=True), one], (3,))
            u = self.npy_bits(f"u_{dtype}.npy", dtype,
                              [quiet_nan(dtype, 3, negative=True), float_bits(dtype, 2.0),
                               quiet_nan(dtype, 5), quiet_nan(dtype, 6, negative=True)], (4,))
            i = self.npy("i.npy", "int32", [[0], [0], [1], [2]])
            flat = self.npy("flat.npy", "int32", [0, 0, 1, 2])
            for red in ("add", "mul", "min", "max"):
                self.compare_backends(["scatter-nd", "--input", x, "--indices", i, "--updates", u,
                                       "--reduction", red, "--deterministic"])
                self.compare_backends(["scatter", "--input", x, "--indices", flat, "--updates", u,
                                       "--axis", 0, "--reduction", red, "--deterministic"])


# --------------------------------------------------------------------------
# check_tool.py's edge cases against NumPy


def python_with_numpy():
    for exe in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if not exe or not os.path.exists(exe):
            continue
        try:
            ok = subprocess.run([exe, "-c", "import numpy"], capture_output=True,
                                timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return exe
    return None


def vulkan_available():
    with tempfile.TemporaryDirectory() as d:
        x = write_npy(Path(d) / "x.npy", "float32", [1, 2])
        proc = strix("join", "--input", x, "--axis", 0, "--backend", "vulkan",
                     "--output", Path(d) / "y.npy")
        return proc.returncode == 0


class RandomizedTests(unittest.TestCase):
    def run_checker(self, *extra):
        py = python_with_numpy()
        if py is None:
            self.skipTest("no Python with NumPy to run check_tool.py")
        self.assertTrue(CHECK_TOOL.exists(), f"{CHECK_TOOL} is missing")
        proc = subprocess.run([py, str(CHECK_TOOL), STRIX, "--cases", "1", *extra],
                              capture_output=True, timeout=600)
        out = text(proc.stdout) + text(proc.stderr)
        self.assertEqual(proc.returncode, 0, f"check_tool.py failed:\n{out}")

    # (the random combinations are the tool-numpy tests' own: every one of them on the CPU,
    # hundreds on Vulkan; here only the edge cases, which those do not run)

    def test_check_tool_edge_cases_cpu(self):
        # zero-size tensors, 0-d indices, empty split parts, pads that crop an axis away; every
        # one of them, but in a sanitized build (STRIX_TEST_REDUCED), whose tool starts in about
        # 0.33 s: there 100 drawn at random (the plain build's run of this suite has them all)
        reduced = ["--limit", "100"] if REDUCED else []
        self.run_checker("--edge-cases", "--filter", "edge-", "--seed", "9", "--backend", "cpu", *reduced)

    def test_check_tool_edge_cases_vulkan(self):
        if not vulkan_available():
            self.skipTest("no Vulkan backend")
        # (60 in a sanitized build's run)
        self.run_checker("--edge-cases", "--filter", "edge-", "--limit", "60" if REDUCED else "120",
                         "--seed", "10", "--backend", "vulkan")


def main():
    global STRIX
    if len(sys.argv) < 2:
        print("usage: tool_test.py STRIX_EXE [unittest options]", file=sys.stderr)
        return 2
    STRIX = os.path.abspath(sys.argv[1])
    if not os.access(STRIX, os.X_OK):
        print(f"tool_test.py: {sys.argv[1]} is not an executable", file=sys.stderr)
        return 2
    prog = unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=False, verbosity=1)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
