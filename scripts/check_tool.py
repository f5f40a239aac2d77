#!/usr/bin/python3
"""Randomized differential check of the strix command line tool against NumPy.

    scripts/check_tool.py STRIX_EXE [--cases N] [--seed S] [--backend cpu]

For every operator (gather in its natural and DirectML forms, join, pad in each
mode, scatter) x element type x index type (where the operator takes indices)
x rank 1..8, N random cases are generated with NumPy, written as .npy files,
run through the tool, and the output is compared bit for bit with NumPy's
answer (np.take, np.concatenate, np.pad, and a scatter reference in which the
last update in row-major order wins). Each operator also gets cases under
`--out-of-range clamp` and cases with an out-of-range index under the default
`error` policy, which must exit with status 2 and write nothing.

Every failure prints one line holding the exact command line; the files of
failing cases are kept (the directory is printed at the end). Exit status 0
when everything matches, 1 on any mismatch, 2 on bad arguments.
"""

import argparse
import concurrent.futures
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

DTYPES = ["float64", "float32", "float16", "int64", "int32", "int16", "int8",
          "uint64", "uint32", "uint16", "uint8"]
INDEX_DTYPES = ["int32", "int64", "uint32", "uint64"]
PAD_MODES = ["constant", "edge", "reflect", "symmetric"]
MAX_RANK = 8
ELEMENT_BUDGET = 2000          # largest element count of any tensor in a case
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class Skip(Exception):
    """The random draw does not make a valid case; draw again."""


# --------------------------------------------------------------------------
# random data


def is_float(dt):
    return np.dtype(dt).kind == "f"


def is_signed(dt):
    return np.dtype(dt).kind == "i"


def float_specials(dt):
    dt = np.dtype(dt)
    fi = np.finfo(dt)
    ubits = BITS[dt.itemsize]
    nbits = dt.itemsize * 8
    neg_nan = np.array([(1 << (nbits - 1)) | int(np.array(np.nan, dt).view(ubits))],
                       dtype=ubits).view(dt)[0]
    one_sub = np.array([1], dtype=ubits).view(dt)[0]      # smallest subnormal
    vals = [np.nan, neg_nan, np.inf, -np.inf, 0.0, -0.0, fi.max, -fi.max, fi.tiny,
            -fi.tiny, one_sub, -one_sub, 1.0, -1.0]
    return np.array(vals, dtype=dt)


def int_specials(dt):
    ii = np.iinfo(dt)
    vals = {ii.min, ii.max, 0, 1, ii.max - 1, ii.min + 1}
    if ii.min < 0:
        vals.add(-1)
    return np.array(sorted(vals), dtype=dt)


def random_values(rng, dt, shape):
    """Values over the whole range of dt, extremes, and for floats NaNs
    (with payloads and signs), infinities, subnormals and -0.0."""
    dt = np.dtype(dt)
    size = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "f":
        ubits = BITS[dt.itemsize]
        with np.errstate(all="ignore"):
            normal = (rng.standard_normal(size) *
                      10.0 ** rng.uniform(-3, 3, size)).astype(dt)
        raw = rng.integers(0, np.iinfo(ubits).max, size, dtype=ubits,
                           endpoint=True).view(dt)
        specials = float_specials(dt)
        special = specials[rng.integers(0, len(specials), size)]
        pick = rng.integers(0, 10, size)
        # select on the bit patterns, so that NaN payloads stay as drawn
        out_bits = np.where(pick < 5, normal.view(ubits),
                            np.where(pick < 7, raw.view(ubits), special.view(ubits)))
        out = out_bits.astype(ubits).view(dt)
    else:
        ii = np.iinfo(dt)
        out = rng.integers(ii.min, ii.max, size, dtype=dt, endpoint=True)
        if size and rng.random() < 0.7:
            k = int(rng.integers(1, max(2, size // 4) + 1))
            where = rng.integers(0, size, k)
            specials = int_specials(dt)
            out[where] = specials[rng.integers(0, len(specials), k)]
        small = rng.random(size) < 0.3           # some small values too
        out = np.where(small, rng.integers(0, 100, size).astype(dt), out).astype(dt)
    return out.reshape(shape)


def random_shape(rng, rank, budget, ones=0.15, max_dim=None):
    if max_dim is None:
        max_dim = {1: 40, 2: 20, 3: 10, 4: 7, 5: 5, 6: 4, 7: 3, 8: 3}[rank]
    dims = [int(d) for d in rng.integers(1, max_dim + 1, rank)]
    for i in range(rank):
        if rng.random() < ones:
            dims[i] = 1
    return shrink(dims, budget)


def shrink(dims, budget, lo=1, keep=()):
    dims = list(dims)
    while math.prod(dims) > budget:
        cand = [i for i in range(len(dims)) if dims[i] > lo and i not in keep]
        if not cand:
            raise Skip()
        i = max(cand, key=lambda j: dims[j])
        dims[i] = max(lo, dims[i] // 2 if dims[i] > 3 else dims[i] - 1)
    return dims


def maybe_fortran(rng, a, p=0.3):
    if a.ndim >= 2 and rng.random() < p:
        return np.asfortranarray(a)
    return np.ascontiguousarray(a)


def random_indices(rng, idt, shape, n, negative, out_of_range=False):
    """Indices for an axis of size n. With out_of_range, values beyond the
    axis (and huge ones) appear as well."""
    signed = is_signed(idt)
    size = int(np.prod(shape, dtype=np.int64))
    if out_of_range:
        hi = 3 * n + 2
        lo = -hi if signed else 0
        vals = rng.integers(lo, hi + 1, size).astype(object)
        ii = np.iinfo(idt)
        extremes = [ii.max, n, ii.max // 2 + 7] + ([ii.min, -n - 1] if signed else [])
        for k in range(size):
            if rng.random() < 0.2:
                vals[k] = extremes[int(rng.integers(0, len(extremes)))]
        if size:                 # at least one index is really out of range
            vals[int(rng.integers(0, size))] = extremes[int(rng.integers(0, len(extremes)))]
        arr = np.array([int(v) for v in vals], dtype=idt)
    elif signed and negative:
        arr = rng.integers(-n, n, size).astype(idt)
    else:
        arr = rng.integers(0, n, size).astype(idt)
    return arr.reshape(shape)


def resolve_indices(idx, n, clamp):
    """Indices as int64 positions in [0, n), the way the tool must read them."""
    if np.dtype(idx.dtype).kind == "u":
        if clamp:
            return np.minimum(idx, np.array(n - 1, idx.dtype)).astype(np.int64)
        return idx.astype(np.int64)
    v = idx.astype(np.int64)
    v = np.where(v < 0, v + n, v)
    if clamp:
        v = np.clip(v, 0, n - 1)
    return v


# --------------------------------------------------------------------------
# references


def scatter_reference(x, axis, idx, upd, clamp=False):
    """output = x; output[..., idx[p], ...] = upd[p] over p in row-major
    order, so the last duplicate wins."""
    out = np.ascontiguousarray(x).copy()
    n = x.shape[axis]
    pos = resolve_indices(idx, n, clamp)
    if idx.size == 0:
        return out
    coords = list(np.indices(idx.shape))
    coords[axis] = pos
    flat = np.ravel_multi_index(tuple(c.ravel() for c in coords), x.shape)
    values = np.ascontiguousarray(upd).ravel()
    # keep only the last write to each target
    _, first_in_reversed = np.unique(flat[::-1], return_index=True)
    keep = len(flat) - 1 - first_in_reversed
    out_flat = out.reshape(-1)
    out_flat[flat[keep]] = values[keep]
    return out


def mirror_positions(n, start, end, mode):
    """Source position of each output position along one dimension. Wide pads
    fold again and again, so reflect has period 2(n-1) and symmetric 2n."""
    p = np.arange(-start, n + end, dtype=np.int64)
    if mode == "edge" or (mode == "reflect" and n == 1):
        return np.clip(p, 0, n - 1)
    if mode == "reflect":
        m = p % (2 * (n - 1))
        return np.where(m < n, m, 2 * (n - 1) - m)
    if mode == "symmetric":
        m = p % (2 * n)
        return np.where(m < n, m, 2 * n - 1 - m)
    raise ValueError(mode)


def pad_reference(x, start, end, mode):
    """numpy.pad for edge/reflect/symmetric. NumPy 1.x folds wide, uneven
    pads wrongly (numpy issue 25926), so the folding is done here and checked
    against np.pad where the pads are within one fold."""
    out = x
    for d, (n, s, e) in enumerate(zip(x.shape, start, end)):
        out = np.take(out, mirror_positions(n, s, e, mode), axis=d)
    limit = {"edge": 1 << 30, "reflect": 0, "symmetric": 0}[mode]
    if mode != "edge":
        limit = min(n - 1 if mode == "reflect" else n for n in x.shape)
    if max(start + end) <= limit or mode == "edge":
        assert bits_equal(out, np.pad(x, list(zip(start, end)), mode=mode)), "reference disagrees"
    return out


# --------------------------------------------------------------------------
# cases


class Case:
    def __init__(self, name, args, inputs, expected=None, expect_error=False):
        self.name = name
        self.args = args              # tool arguments; file names relative to the case dir
        self.inputs = inputs          # file name -> array
        self.expected = expected
        self.expect_error = expect_error


def normalize_axis_arg(rng, axis, rank):
    return axis - rank if rng.random() < 0.35 else axis


def make_gather(rng, dt, idt, rank, clamp=False, error=False):
    x_shape = random_shape(rng, rank, 400)
    axis = int(rng.integers(0, rank))
    n = x_shape[axis]
    q = int(rng.integers(1, min(3, MAX_RANK + 1 - rank) + 1))
    rest = math.prod(x_shape) // n
    idx_shape = random_shape(rng, q, max(1, min(60, ELEMENT_BUDGET // rest)), max_dim=6)
    x = random_values(rng, dt, x_shape)
    negative = rng.random() < 0.5
    idx = random_indices(rng, idt, idx_shape, n, negative, out_of_range=clamp or error)
    args = ["gather", "--input", "x.npy", "--indices", "i.npy",
            "--axis", str(normalize_axis_arg(rng, axis, rank))]
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx)}
    if error:
        return Case(None, args, inputs, expect_error=True)
    pos = resolve_indices(idx, n, clamp)
    return Case(None, args, inputs, np.take(x, pos, axis=axis))


def make_gather_dml(rng, dt, idt, rank, clamp=False):
    """DirectML form: indices of the input's rank with leading 1s; the last K
    dims are meaningful. Drawn so that the K-1 leading dims of the full output
    shape are input 1s, which the right-alignment crops."""
    k = int(rng.integers(1, rank + 1))
    axis = int(rng.integers(k - 1, rank))
    x_shape = random_shape(rng, rank, 400)
    for d in range(k - 1):
        x_shape[d] = 1
    n = x_shape[axis]
    rest = math.prod(x_shape) // n
    m_shape = random_shape(rng, k, max(1, min(60, ELEMENT_BUDGET // rest)), max_dim=5)
    x = random_values(rng, dt, x_shape)
    idx_m = random_indices(rng, idt, m_shape, n, rng.random() < 0.5, out_of_range=clamp)
    idx = idx_m.reshape([1] * (rank - k) + m_shape)
    full = x_shape[:axis] + m_shape + x_shape[axis + 1:]
    assert all(d == 1 for d in full[:k - 1])
    expected = np.take(x, resolve_indices(idx_m, n, clamp), axis=axis).reshape(full[k - 1:])
    args = ["gather", "--input", "x.npy", "--indices", "i.npy",
            "--axis", str(normalize_axis_arg(rng, axis, rank)),
            "--index-dimensions", str(k)]
    if clamp:
        args += ["--out-of-range", "clamp"]
    return Case(None, args, {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx)},
                expected)


def make_join(rng, dt, rank, clamp=False):
    count = int(rng.integers(1, 5))
    axis = int(rng.integers(0, rank))
    base = random_shape(rng, rank, 100)
    pieces = []
    for _ in range(count):
        shape = list(base)
        shape[axis] = int(rng.integers(1, 6))
        pieces.append(random_values(rng, dt, shape))
    args = ["join"]
    inputs = {}
    for j, p in enumerate(pieces):
        name = f"x{j}.npy"
        inputs[name] = maybe_fortran(rng, p)
        args += ["--input", name]
    args += ["--axis", str(normalize_axis_arg(rng, axis, rank))]
    if clamp:
        args += ["--out-of-range", "clamp"]
    return Case(None, args, inputs, np.concatenate(pieces, axis=axis))


def constant_values(dt):
    """(text given to --value, expected value as text for the reference)."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        return ["9", "0", "-0.0", "10.6", "-10.6", "0.1", "1e-3", "3.14159",
                "65504", "70000", "1e300", "1e-8", "-2.5e-40", "4611686018427387905",
                "9007199254740993", "1.0004882812509095", "-1.0004882812509095",
                "inf", "-inf", "nan"]
    ii = np.iinfo(dt)
    vals = [str(ii.min), str(ii.max), "0", "9", str(ii.max // 3)]
    vals += ["10.6", "0.9", "2.5e2" if ii.max >= 250 else "2.5e1", f"{ii.max}.75" if ii.bits <= 32 else "1e18"]
    if ii.min < 0:
        vals += ["-1", "-10.6", "-0.9", f"{ii.min}.5" if ii.bits <= 32 else "-1e18"]
    if dt == np.int64:
        vals += [str(2 ** 62 + 1), str(-(2 ** 62) - 3), str(2 ** 53 + 1)]
    if dt == np.uint64:
        vals += [str(2 ** 63 + 1), str(2 ** 64 - 3), str(2 ** 53 + 1)]
    return vals


def constant_as(dt, text):
    dt = np.dtype(dt)
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return np.array(float(text), dtype=np.float64).astype(dt)
    try:
        v = int(text)                      # an integer literal is exact
    except ValueError:
        v = math.trunc(float(text))        # anything else truncates toward zero
    return np.array(v, dtype=dt)


def make_pad(rng, dt, rank, mode, clamp=False):
    x_shape = random_shape(rng, rank, 300)
    x = random_values(rng, dt, x_shape)
    start, end = [], []
    for n in x_shape:
        hi = 3 if mode == "constant" else 3 * n
        if rng.random() < 0.3:
            start.append(0)
        else:
            start.append(int(rng.integers(0, hi + 1)))
        if rng.random() < 0.3:
            end.append(0)
        else:
            end.append(int(rng.integers(0, hi + 1)))
    # keep the output small
    while math.prod(n + s + e for n, s, e in zip(x_shape, start, end)) > ELEMENT_BUDGET:
        cand = [i for i in range(rank) if start[i] or end[i]]
        if not cand:
            raise Skip()
        i = cand[int(rng.integers(0, len(cand)))]
        start[i] //= 2
        end[i] //= 2
    args = ["pad", "--input", "x.npy", "--mode", mode,
            "--start", ",".join(map(str, start)), "--end", ",".join(map(str, end))]
    if mode == "constant":
        choices = constant_values(dt)
        text = choices[int(rng.integers(0, len(choices)))]
        value = constant_as(dt, text)
        args += ["--value", text]
        out_shape = [n + s + e for n, s, e in zip(x_shape, start, end)]
        expected = np.full(out_shape, value, dtype=dt)
        expected[tuple(slice(s, s + n) for s, n in zip(start, x_shape))] = x
    else:
        expected = pad_reference(x, start, end, mode)
    if clamp:
        args += ["--out-of-range", "clamp"]
    return Case(None, args, {"x.npy": maybe_fortran(rng, x)}, expected)


def make_scatter(rng, dt, idt, rank, clamp=False, error=False):
    x_shape = random_shape(rng, rank, 500)
    axis = int(rng.integers(0, rank))
    n = x_shape[axis]
    idx_shape = [int(rng.integers(1, d + 1)) if rng.random() < 0.5 else d for d in x_shape]
    idx_shape[axis] = int(rng.integers(1, n + 3))
    idx_shape = shrink(idx_shape, ELEMENT_BUDGET // 2)
    x = random_values(rng, dt, x_shape)
    upd = random_values(rng, dt, idx_shape)
    idx = random_indices(rng, idt, idx_shape, n, rng.random() < 0.5, out_of_range=clamp or error)
    args = ["scatter", "--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy",
            "--axis", str(normalize_axis_arg(rng, axis, rank))]
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx),
              "u.npy": maybe_fortran(rng, upd)}
    if error:
        return Case(None, args, inputs, expect_error=True)
    return Case(None, args, inputs, scatter_reference(x, axis, idx, upd, clamp))


def make_edge(rng, dt, idt, rank, kind):
    """Cases at the edges of the contract (zero-size dims, 0-d indices),
    only with --edge-cases."""
    if kind == "gather-empty-indices":
        x_shape = random_shape(rng, rank, 200)
        axis = int(rng.integers(0, rank))
        idx = np.zeros([0], dtype=idt)
        x = random_values(rng, dt, x_shape)
        args = ["gather", "--input", "x.npy", "--indices", "i.npy", "--axis", str(axis)]
        return Case(None, args, {"x.npy": x, "i.npy": idx}, np.take(x, idx.astype(np.int64), axis))
    if kind == "gather-scalar-index":
        if rank < 2:
            raise Skip()
        x_shape = random_shape(rng, rank, 200)
        axis = int(rng.integers(0, rank))
        idx = np.array(int(rng.integers(0, x_shape[axis])), dtype=idt)
        x = random_values(rng, dt, x_shape)
        args = ["gather", "--input", "x.npy", "--indices", "i.npy", "--axis", str(axis)]
        return Case(None, args, {"x.npy": x, "i.npy": idx}, np.take(x, int(idx), axis))
    if kind == "join-zero-piece":
        axis = int(rng.integers(0, rank))
        base = random_shape(rng, rank, 200)
        a = random_values(rng, dt, base)
        zshape = list(base)
        zshape[axis] = 0
        z = np.zeros(zshape, dtype=dt)
        args = ["join", "--input", "a.npy", "--input", "z.npy", "--input", "b.npy",
                "--axis", str(axis)]
        return Case(None, args, {"a.npy": a, "z.npy": z, "b.npy": a},
                    np.concatenate([a, z, a], axis))
    if kind == "pad-zero-size":
        x_shape = random_shape(rng, rank, 200)
        d = int(rng.integers(0, rank))
        x_shape[d] = 0
        x = np.zeros(x_shape, dtype=dt)
        start = [int(v) for v in rng.integers(0, 2, rank)]
        end = [int(v) for v in rng.integers(0, 2, rank)]
        args = ["pad", "--input", "x.npy", "--mode", "constant", "--value", "7",
                "--start", ",".join(map(str, start)), "--end", ",".join(map(str, end))]
        exp = np.full([n + s + e for n, s, e in zip(x_shape, start, end)], 7, dtype=dt)
        return Case(None, args, {"x.npy": x}, exp)
    if kind == "scatter-empty":
        x_shape = random_shape(rng, rank, 200)
        axis = int(rng.integers(0, rank))
        ishape = list(x_shape)
        ishape[axis] = 0
        x = random_values(rng, dt, x_shape)
        args = ["scatter", "--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy",
                "--axis", str(axis)]
        return Case(None, args, {"x.npy": x, "i.npy": np.zeros(ishape, idt),
                                 "u.npy": np.zeros(ishape, dt)}, x.copy())
    raise ValueError(kind)


EDGE_KINDS = ["gather-empty-indices", "gather-scalar-index", "join-zero-piece",
              "pad-zero-size", "scatter-empty"]


def plan(args):
    """The list of (name, factory) pairs; factory(rng) -> Case."""
    out = []
    ranks = range(1, MAX_RANK + 1)

    def add(name, fn):
        out.append((name, fn))

    for dt in DTYPES:
        for r in ranks:
            for idt in INDEX_DTYPES:
                add(f"gather/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r: make_gather(rng, dt, idt, r))
                add(f"gather-dml/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r: make_gather_dml(rng, dt, idt, r))
                add(f"scatter/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r: make_scatter(rng, dt, idt, r))
            add(f"join/{dt}/r{r}", lambda rng, dt=dt, r=r: make_join(rng, dt, r))
            for mode in PAD_MODES:
                add(f"pad-{mode}/{dt}/r{r}",
                    lambda rng, dt=dt, r=r, mode=mode: make_pad(rng, dt, r, mode))
    # the out-of-range policies: a few per operator, index type and element type
    for dt in DTYPES:
        for idt in INDEX_DTYPES:
            add(f"gather-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather(rng, dt, idt, int(rng.integers(1, 6)), clamp=True))
            add(f"gather-dml-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather_dml(rng, dt, idt, int(rng.integers(1, 6)), clamp=True))
            add(f"scatter-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter(rng, dt, idt, int(rng.integers(1, 6)), clamp=True))
            add(f"gather-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather(rng, dt, idt, int(rng.integers(1, 6)), error=True))
            add(f"scatter-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter(rng, dt, idt, int(rng.integers(1, 6)), error=True))
        add(f"join-clamp/{dt}",
            lambda rng, dt=dt: make_join(rng, dt, int(rng.integers(1, 6)), clamp=True))
        add(f"pad-clamp/{dt}",
            lambda rng, dt=dt: make_pad(rng, dt, int(rng.integers(1, 6)),
                                        PAD_MODES[int(rng.integers(0, 4))], clamp=True))
    if args.edge_cases:
        for kind in EDGE_KINDS:
            for dt in DTYPES:
                for r in ranks:
                    if kind == "gather-scalar-index" and r < 2:
                        continue          # the output would have rank 0
                    idt = INDEX_DTYPES[r % 4]
                    add(f"edge-{kind}/{dt}/{idt}/r{r}",
                        lambda rng, dt=dt, idt=idt, r=r, kind=kind: make_edge(rng, dt, idt, r, kind))
    return out


# --------------------------------------------------------------------------
# running


def bits_equal(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    u = BITS[a.dtype.itemsize]
    return np.array_equal(np.ascontiguousarray(a).view(u), np.ascontiguousarray(b).view(u))


def npy_fortran_flag(path):
    with open(path, "rb") as f:
        major, _ = np.lib.format.read_magic(f)
        if major == 1:
            _, fortran, _ = np.lib.format.read_array_header_1_0(f)
        else:
            _, fortran, _ = np.lib.format.read_array_header_2_0(f)
    return fortran


def describe_diff(got, exp):
    if got.dtype != exp.dtype:
        return f"dtype {got.dtype} != expected {exp.dtype}"
    if got.shape != exp.shape:
        return f"shape {got.shape} != expected {exp.shape}"
    u = BITS[got.dtype.itemsize]
    g = np.ascontiguousarray(got).view(u)
    e = np.ascontiguousarray(exp).view(u)
    bad = np.argwhere(g != e)
    first = tuple(int(v) for v in bad[0])
    return (f"{len(bad)} of {got.size} elements differ; first at {first}: "
            f"got {got[first]!r} (0x{int(g[first]):x}), expected {exp[first]!r} (0x{int(e[first]):x})")


def run_case(exe, backend, root, number, name, factory, seed):
    rng = np.random.default_rng([seed, zlib.crc32(name.encode()), number])
    for _ in range(50):
        try:
            case = factory(rng)
            break
        except Skip:
            continue
    else:
        return ("skip", name, "no valid draw", None)
    case.name = f"{name}/#{number}"
    d = os.path.join(root, case.name.replace("/", "_").replace("#", ""))
    os.makedirs(d, exist_ok=True)
    for fname, arr in case.inputs.items():
        np.save(os.path.join(d, fname), arr)
    out = os.path.join(d, "out.npy")
    argv = [exe] + [os.path.join(d, a) if a in case.inputs else a for a in case.args]
    argv += ["--output", out]
    if backend:
        argv += ["--backend", backend]
    cmd = shlex.join(argv)
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ("fail", case.name, "timed out", cmd)
    err = proc.stderr.decode(errors="replace").strip()
    if case.expect_error:
        lines = [ln for ln in proc.stderr.decode(errors="replace").splitlines()]
        if proc.returncode != 2:
            return ("fail", case.name, f"expected exit 2 for an out-of-range index, got {proc.returncode}", cmd)
        if os.path.exists(out):
            return ("fail", case.name, "an output file was written although the run failed", cmd)
        if len(lines) != 1 or not lines[0].strip():
            return ("fail", case.name, f"expected one line on stderr, got {len(lines)}: {err[:200]!r}", cmd)
        shutil.rmtree(d, ignore_errors=True)
        return ("ok", case.name, None, None)
    if proc.returncode != 0:
        return ("fail", case.name, f"exit {proc.returncode}: {err[:300]}", cmd)
    try:
        got = np.load(out, allow_pickle=False)
        fortran = npy_fortran_flag(out)
    except Exception as e:  # noqa: BLE001 - any unreadable output is a failure
        return ("fail", case.name, f"output unreadable: {e}", cmd)
    if fortran:
        return ("fail", case.name, "output written in Fortran order", cmd)
    if not bits_equal(got, case.expected):
        return ("fail", case.name, describe_diff(got, case.expected), cmd)
    shutil.rmtree(d, ignore_errors=True)
    return ("ok", case.name, None, None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("strix", help="path of the strix executable")
    ap.add_argument("--cases", type=int, default=2, help="cases per combination (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--backend", default=None, help="backend to pass to the tool (default: the tool's)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="tool runs in parallel")
    ap.add_argument("--limit", type=int, default=0,
                    help="run only this many combinations, drawn at random with the seed")
    ap.add_argument("--filter", default="", help="run only combinations whose name contains this")
    ap.add_argument("--edge-cases", action="store_true",
                    help="also zero-size tensors and 0-d indices")
    ap.add_argument("--keep", default=None, help="directory for the case files (kept)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    args = ap.parse_args(argv)

    exe = os.path.abspath(args.strix)
    if not os.access(exe, os.X_OK):
        print(f"check_tool: {args.strix} is not an executable", file=sys.stderr)
        return 2
    combos = [c for c in plan(args) if args.filter in c[0]]
    if args.limit and args.limit < len(combos):
        pick = np.random.default_rng(args.seed).choice(len(combos), args.limit, replace=False)
        combos = [combos[i] for i in sorted(pick)]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        root = args.keep
    else:
        root = tempfile.mkdtemp(prefix="strix-check-")

    started = time.monotonic()
    results = {"ok": 0, "fail": 0, "skip": 0}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case, exe, args.backend, root, k, name, fn, args.seed)
                   for name, fn in combos for k in range(args.cases)]
        for fut in futures:
            status, name, why, cmd = fut.result()
            results[status] += 1
            if status == "fail":
                failures.append(name)
                print(f"FAIL {name}: {why} | $ {cmd}", flush=True)
            elif args.verbose:
                print(f"{status} {name}", flush=True)
    elapsed = time.monotonic() - started
    total = results["ok"] + results["fail"]
    print(f"check_tool: {total} cases, {results['ok']} passed, {results['fail']} failed"
          f"{', %d skipped' % results['skip'] if results['skip'] else ''}"
          f" ({len(combos)} combinations, seed {args.seed}, {elapsed:.1f} s)")
    if failures:
        print(f"check_tool: files of the failing cases are in {root}")
    elif not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
