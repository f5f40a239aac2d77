#!/usr/bin/env python3
"""Writes fuzz/corpus/ops/: one small valid call per operator, in the input format that
fuzz/fuzz_ops.cpp decodes (all fields read from the front; see `decode` there).

Run from the repository root: python3 fuzz/make_ops_seeds.py
"""
import os
import struct

OPS = ["gather", "join", "pad", "split", "scatter", "gather_elements", "gather_nd", "scatter_nd"]
DTYPES = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8"]
INDEX = ["int32", "int64", "uint32", "uint64"]
REDUCTIONS = ["none", "add", "mul", "min", "max"]
MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


def size(v):
    """A size: 0..7 in one byte, anything else as 8 raw bytes."""
    return bytes([v]) if 0 <= v < 8 else bytes([0xE0]) + struct.pack("<q", v)


def sval(v):
    """A signed value: -8..8 in one byte, anything else as 8 raw bytes."""
    return bytes([v + 8]) if -8 <= v <= 8 else bytes([0xE0]) + struct.pack("<q", v)


def operand(shape):
    return bytes([len(shape)]) + b"".join(size(s) for s in shape)


def call(op, dtype="float32", itype="int64", count=0, axis=0, k=-1, batch=0, clamp=False,
         reduction="none", mode="constant", value=0, start=(), end=(), operands=(), indices=(),
         flags=0, decoded=0):
    b = bytes([OPS.index(op), flags, DTYPES.index(dtype), INDEX.index(itype), 0, 0, decoded, count])
    b += sval(axis) + sval(k) + sval(batch) + bytes([int(clamp), REDUCTIONS.index(reduction), MODES.index(mode)])
    b += bytes([1]) + sval(value)  # an integer fill value
    b += bytes([0])  # pads: one per dimension of the input
    b += b"".join(sval(v) for v in list(start) + [0] * (8 - len(start)))
    b += b"".join(sval(v) for v in list(end) + [0] * (8 - len(end)))
    b += b"".join(operand(s) for s in operands)
    b += b"".join(sval(v) for v in indices)
    return b


SEEDS = {
    # inferred outputs (the `decoded` bits are 0), so only the inputs' shapes matter
    "gather": call("gather", axis=1, operands=[(3, 4), (2,), ()], indices=[3, -1]),
    "join": call("join", count=3, axis=1, operands=[(2, 3), (1,), (4,), ()]),
    "pad": call("pad", dtype="int16", mode="reflect", start=(1, 2), end=(2, 0), operands=[(3, 3), ()]),
    "split": call("split", dtype="uint8", count=2, axis=0, operands=[(5, 2), (2,), (3,)]),
    "scatter": call("scatter", axis=0, reduction="add", operands=[(4, 2), (3, 2), (), ()], indices=[0, 1, 3, 3, -1, 0]),
    "gather_elements": call("gather_elements", dtype="float16", itype="int32", axis=1, clamp=True,
                            operands=[(2, 3), (2, 2), ()], indices=[2, 0, 7, -2]),
    "gather_nd": call("gather_nd", dtype="int64", operands=[(2, 3, 2), (2, 2), ()], indices=[1, 2, 0, 0]),
    "scatter_nd": call("scatter_nd", dtype="float64", reduction="max", operands=[(4, 3), (2, 1), (), ()], indices=[3, 1]),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "ops")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
