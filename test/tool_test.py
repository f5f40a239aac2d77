#!/usr/bin/env python3
"""End-to-end tests of the strix command line tool.

    tool_test.py STRIX_EXE [unittest options]

Runs the four operators on the examples of the specification (and a few
more), checks the commands that are not operators, checks that every kind of
bad input exits with status 2, one line on stderr and no output written, and
finishes with a short pass of scripts/check_tool.py (which needs NumPy; the
tests themselves use plain Python and read and write .npy files here).
"""

import ast
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

STRIX = None                      # set from the command line in main()
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


class CommandTests(ToolCase):
    def test_help(self):
        proc = self.run_ok("--help")
        self.assertTrue(text(proc.stdout + proc.stderr).strip())
        for op in ("gather", "join", "pad", "scatter"):
            proc = self.run_ok(op, "--help")
            self.assertIn(op, text(proc.stdout + proc.stderr).lower())

    def test_devices(self):
        proc = self.run_ok("devices")
        self.assertIn("cpu", text(proc.stdout).lower())

    def test_demo(self):
        proc = self.run_ok("demo")
        out = text(proc.stdout).lower()
        self.assertTrue(out.strip())
        for op in ("gather", "join", "pad", "scatter"):
            self.assertIn(op, out)


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
        variants = ["existing", "missing"]
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


# --------------------------------------------------------------------------
# the Vulkan backend, when there is one


class BackendTests(ToolCase):
    def compare_backends(self, args):
        cpu_out = self.path("cpu.npy")
        gpu_out = self.path("gpu.npy")
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


# --------------------------------------------------------------------------
# a short randomized pass against NumPy


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

    def test_check_tool_cpu(self):
        self.run_checker("--limit", "300", "--seed", "7", "--backend", "cpu")

    def test_check_tool_vulkan(self):
        if not vulkan_available():
            self.skipTest("no Vulkan backend")
        self.run_checker("--limit", "300", "--seed", "8", "--backend", "vulkan")


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
