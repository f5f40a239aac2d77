#!/usr/bin/python3
"""Randomized differential check of the strix command line tool against NumPy.

    scripts/check_tool.py STRIX_EXE [--cases N] [--seed S] [--backend cpu] [--vulkan-profile full|baseline]

For every operator (gather in its natural and DirectML forms, gather-elements,
gather-nd, join, split, pad in each mode and with negative pads that crop,
scatter and scatter-nd with each reduction) x element type x index type (where
the operator takes indices) x rank 1..8, N random cases are generated with
NumPy, written as .npy files, run through the tool, and the output is compared
bit for bit with an independent answer (np.take, np.take_along_axis,
np.concatenate, np.split, np.pad, and plain loops for gather-nd, wrap pads and
the scatters, which apply the updates one by one in row-major order). Each
index-taking operator also gets cases under `--out-of-range clamp` and cases
with an out-of-range index under the default `error` policy, which must exit
with status 2 and write nothing; split with sizes that do not add up and pads
that crop more than an axis has must fail the same way.

`strix chain` gets random chains of 1 to 4 steps (gather with int32 and int64
indices, pad in every mode and with crops, slice with steps of either sign,
tile), some joined with other tensors, against the per-step references above
applied in turn; chains with a crop larger than its axis or an out-of-range
index at one step must exit with status 2, name that step, and leave an
existing output file as it was. `--filter chain/` runs only those.

Without `--backend cpu` the scatters may run on a device where float add/mul
reductions are applied in any order unless `--deterministic` is given; their
cases without that flag then use data whose sums and products are exact, and
min/max updates hold a single NaN bit pattern, so that the order cannot show.

With `--vulkan-profile baseline` (or STRIX_VULKAN_PROFILE=baseline in the
environment) a device runs the Vulkan baseline path, which refuses float64 add
and mul reductions (they need shaderFloat64): those cases must exit with status
2, naming the feature, and write nothing.

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
PAD_MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]
REDUCTIONS = ["none", "add", "mul", "min", "max"]
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


def wrap_reference(x, start, end):
    """numpy.pad mode='wrap' for any width: output position p reads p mod n.
    NumPy 1.24 gets pads wider than the axis wrong when they are uneven (e.g.
    [0,1] padded 1/3 gives [1,0,1,0,1,1]), so np.pad only checks this where
    every pad is within one period."""
    out = x
    for d, (n, s, e) in enumerate(zip(x.shape, start, end)):
        out = np.take(out, np.arange(-s, n + e, dtype=np.int64) % n, axis=d)
    if all(s <= n and e <= n for n, s, e in zip(x.shape, start, end)):
        assert bits_equal(out, np.pad(x, list(zip(start, end)), mode="wrap")), "reference disagrees"
    return out


def crop_pad_reference(x, start, end, mode, value=None):
    """Negative pads first crop their side of the input; the positive ones
    then pad what is left (so the mirrors fold the cropped tensor)."""
    crop = tuple(slice(max(0, -s), n - max(0, -e)) for n, s, e in zip(x.shape, start, end))
    c = x[crop]
    assert all(a >= 0 for a in c.shape)
    ps = [max(0, s) for s in start]
    pe = [max(0, e) for e in end]
    if mode == "constant":
        out = np.full([n + s + e for n, s, e in zip(c.shape, ps, pe)], value, dtype=x.dtype)
        out[tuple(slice(s, s + n) for s, n in zip(ps, c.shape))] = c
        return out
    if mode == "wrap":
        return wrap_reference(c, ps, pe)
    return pad_reference(c, ps, pe, mode)


def take_along_reference(x, axis, idx, clamp=False):
    """gather-elements: the input cut to the indices' sizes off the axis,
    then np.take_along_axis with the indices resolved."""
    cut = tuple(slice(None) if d == axis else slice(0, idx.shape[d]) for d in range(x.ndim))
    pos = resolve_indices(idx, x.shape[axis], clamp)
    return np.take_along_axis(x[cut], pos, axis=axis)


def nd_positions(x_shape, batch, idx, clamp):
    """The index tuples of gather-nd / scatter-nd as int64 positions, each
    component resolved against the dimension it addresses."""
    k = idx.shape[-1]
    cols = [resolve_indices(idx[..., j], x_shape[batch + j], clamp) for j in range(k)]
    return np.stack(cols, axis=-1) if cols else np.zeros(idx.shape, np.int64)


def gather_nd_reference(x, idx, batch, clamp=False):
    """A plain loop over the index tuples: out[b.., m..] = x[b.., tuple]."""
    k = idx.shape[-1]
    pos = nd_positions(x.shape, batch, idx, clamp)
    u = BITS[x.dtype.itemsize]
    src = np.ascontiguousarray(x).view(u)      # copy bits, so NaN payloads stay as they are
    out = np.empty(list(idx.shape[:-1]) + list(x.shape[batch + k:]), dtype=u)
    for where in np.ndindex(*idx.shape[:-1]):
        b = where[:batch]
        out[where] = src[b + tuple(int(v) for v in pos[where])]
    return out.view(x.dtype)


def scatter_targets(x_shape, axis, idx, clamp):
    """Flat output positions of the scatter's updates, in row-major order."""
    pos = resolve_indices(idx, x_shape[axis], clamp)
    coords = list(np.indices(idx.shape))
    coords[axis] = pos
    return np.ravel_multi_index(tuple(c.ravel() for c in coords), x_shape).astype(np.int64)


def scatter_nd_targets(x_shape, idx, clamp):
    """Flat output positions of scatter-nd's updates (shape idx.shape[:-1] ++
    x.shape[k:]), in row-major order."""
    k = idx.shape[-1]
    inner = math.prod(x_shape[k:])
    pos = nd_positions(x_shape, 0, idx, clamp).reshape(-1, k)
    out = []
    for row in pos:
        first = 0
        for j in range(k):
            first = first * x_shape[j] + int(row[j])
        out.extend(range(first * inner, (first + 1) * inner))
    return np.array(out, dtype=np.int64)


def float_min_max(acc, acc_bits, upd, upd_bits, want_min):
    """True when the update replaces the accumulated value: a NaN accumulator
    stays; a NaN update wins; otherwise the smaller (larger) value, with -0.0
    below +0.0."""
    if acc != acc:
        return False
    if upd != upd:
        return True
    if upd == acc:
        if upd == 0 and acc_bits != upd_bits:
            upd_negative = bool(np.signbit(upd))
            return upd_negative if want_min else not upd_negative
        return False
    return bool(upd < acc) if want_min else bool(upd > acc)


def apply_updates(x, targets, values, reduction):
    """The scatter reference for every reduction: output = x, then the
    updates one at a time in the order given (row-major). Integers wrap
    around modulo 2^bits; float16 add/mul is done in float32 and rounded."""
    out = np.ascontiguousarray(x).copy().reshape(-1)
    vals = np.ascontiguousarray(values).reshape(-1)
    assert len(vals) == len(targets)
    dt = out.dtype
    u = BITS[dt.itemsize]
    out_bits = out.view(u)
    val_bits = vals.view(u)
    if dt.kind == "f":
        wide = np.float32 if dt == np.float16 else dt.type
        with np.errstate(all="ignore"):
            for p, t in enumerate(targets):
                if reduction == "none":
                    out_bits[t] = val_bits[p]
                elif reduction in ("add", "mul"):
                    a, b = wide(out[t]), wide(vals[p])
                    out[t] = dt.type(a + b if reduction == "add" else a * b)
                elif float_min_max(out[t], out_bits[t], vals[p], val_bits[p], reduction == "min"):
                    out_bits[t] = val_bits[p]
    else:
        bits = dt.itemsize * 8
        mask = (1 << bits) - 1
        signed = dt.kind == "i"
        acc = [int(v) for v in out]
        for p, t in enumerate(targets):
            v = int(vals[p])
            if reduction == "none":
                acc[t] = v
            elif reduction == "min":
                acc[t] = min(acc[t], v)
            elif reduction == "max":
                acc[t] = max(acc[t], v)
            else:
                r = (acc[t] + v if reduction == "add" else acc[t] * v) & mask
                if signed and r >> (bits - 1):
                    r -= 1 << bits
                acc[t] = r
        out = np.array(acc, dtype=dt)
    return out.reshape(x.shape)


# --------------------------------------------------------------------------
# cases


class Case:
    def __init__(self, name, args, inputs, expected=None, expect_error=False, outputs=None,
                 error_kind="an out-of-range index"):
        self.name = name
        self.args = args              # tool arguments; file names relative to the case dir
        self.inputs = inputs          # file name -> array
        self.expected = expected      # one array, or a list of them when outputs is given
        self.expect_error = expect_error
        self.outputs = outputs        # output file names already in args (split); None: out.npy
        self.error_kind = error_kind  # what makes an expect_error case bad, for the message
        self.any_nan = None           # mask of output elements where any NaN matches a NaN
        self.error_text = None        # what the error line must hold (the chain's step)
        self.keep_output = False      # the output exists before the run; a failing run leaves it


def reduced_case(args, inputs, x, targets, upd, reduction):
    """A scatter case with a reduction. Where float add/mul makes a NaN, its
    payload and sign are not pinned down (IEEE 754 leaves them open; NumPy's
    own scalar and array loops differ), so there any NaN answers a NaN."""
    case = Case(None, args, inputs, apply_updates(x, targets, upd, reduction))
    if is_float(x.dtype) and reduction in ("add", "mul"):
        touched = np.zeros(x.size, dtype=bool)
        touched[targets] = True
        case.any_nan = touched.reshape(x.shape)
    return case


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
        vals = ["9", "0", "-0.0", "10.6", "-10.6", "0.1", "1e-3", "3.14159",
                "65504", "70000", "1e300", "1e-8", "-2.5e-40", "4611686018427387905",
                "9007199254740993", "1.0004882812509095", "-1.0004882812509095",
                "inf", "-inf", "nan"]
        # a finite value that rounds beyond the type's range is refused (the tool's tests
        # check that), so the comparisons take only those that fit, and infinity and NaN
        return [v for v in vals if v in ("inf", "-inf", "nan") or np.isfinite(constant_as(dt, v))]
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


def make_pad(rng, dt, rank, mode, clamp=False, crop=False, error=False):
    """Pads of every mode. With crop, some sides get negative pads that cut
    the input first (a mirror or wrap keeps at least one element to fold);
    with error, one axis is cropped by more than it has."""
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
    if crop or error:
        keep = 0 if mode == "constant" else 1
        for i, n in enumerate(x_shape):
            if n - keep < 1 or rng.random() < 0.4:
                continue
            total = int(rng.integers(1, n - keep + 1))
            cut_start = int(rng.integers(0, total + 1))
            if cut_start:
                start[i] = -cut_start
            if total - cut_start:
                end[i] = -(total - cut_start)
    # keep the output small (only the positive pads grow it)
    while math.prod(n + s + e for n, s, e in zip(x_shape, start, end)) > ELEMENT_BUDGET:
        cand = [i for i in range(rank) if start[i] > 0 or end[i] > 0]
        if not cand:
            raise Skip()
        i = cand[int(rng.integers(0, len(cand)))]
        start[i] = start[i] // 2 if start[i] > 0 else start[i]
        end[i] = end[i] // 2 if end[i] > 0 else end[i]
    if error:
        i = int(rng.integers(0, rank))
        total = x_shape[i] + int(rng.integers(1, 4))
        cut_start = int(rng.integers(0, total + 1))
        start[i], end[i] = -cut_start, -(total - cut_start)
    args = ["pad", "--input", "x.npy", "--mode", mode,
            "--start", ",".join(map(str, start)), "--end", ",".join(map(str, end))]
    value = None
    if mode == "constant":
        choices = constant_values(dt)
        text = choices[int(rng.integers(0, len(choices)))]
        value = constant_as(dt, text)
        args += ["--value", text]
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x)}
    if error:
        return Case(None, args, inputs, expect_error=True,
                    error_kind="negative pads that crop more than the axis has")
    if crop:
        expected = crop_pad_reference(x, start, end, mode, value)
    elif mode == "constant":
        out_shape = [n + s + e for n, s, e in zip(x_shape, start, end)]
        expected = np.full(out_shape, value, dtype=dt)
        expected[tuple(slice(s, s + n) for s, n in zip(start, x_shape))] = x
    elif mode == "wrap":
        expected = wrap_reference(x, start, end)
    else:
        expected = pad_reference(x, start, end, mode)
    return Case(None, args, inputs, expected)


def order_free_values(rng, dt, shape, reduction, role):
    """Data for a float add/mul scatter whose result cannot depend on the
    order of the updates: small integers, so that every sum and product is
    exact (mul updates are -1, 0 or 1)."""
    size = math.prod(shape)
    if reduction == "add":
        lo, hi = (-100, 100) if role == "input" else (-8, 8)
        vals = rng.integers(lo, hi + 1, size)
    else:
        vals = rng.integers(-8, 9, size) if role == "input" else rng.integers(-1, 2, size)
    return vals.astype(dt).reshape(shape)


def one_nan(upd):
    """Every NaN of a float update tensor replaced by one bit pattern, so
    that which NaN wins a min/max does not depend on the order."""
    if upd.dtype.kind != "f":
        return upd
    out = upd.copy()
    out[np.isnan(out)] = np.array(np.nan, dtype=upd.dtype)
    return out


def scatter_data(rng, dt, x_shape, u_shape, reduction, any_order):
    """(input, updates, extra arguments) of a scatter with a reduction. The
    flag --deterministic comes at random; where the backend may reorder the
    updates (any_order) and the flag is absent, the data are order-free."""
    deterministic = rng.random() < 0.4
    extra = ["--reduction", reduction] + (["--deterministic"] if deterministic else [])
    if any_order and not deterministic and is_float(dt) and reduction in ("add", "mul"):
        x = order_free_values(rng, dt, x_shape, reduction, "input")
        upd = order_free_values(rng, dt, u_shape, reduction, "updates")
    else:
        x = random_values(rng, dt, x_shape)
        upd = random_values(rng, dt, u_shape)
        if any_order and not deterministic and reduction in ("min", "max"):
            upd = one_nan(upd)
        if reduction == "mul" and rng.random() < 0.5 and not is_float(dt):
            # mostly small factors, so that products do not all wrap to 0
            small = rng.integers(0, 4, u_shape).astype(dt)
            upd = np.where(rng.random(u_shape) < 0.8, small, upd)
    return x, upd, extra


def make_scatter(rng, dt, idt, rank, clamp=False, error=False, reduction=None, any_order=False):
    x_shape = random_shape(rng, rank, 500)
    axis = int(rng.integers(0, rank))
    n = x_shape[axis]
    idx_shape = [int(rng.integers(1, d + 1)) if rng.random() < 0.5 else d for d in x_shape]
    idx_shape[axis] = int(rng.integers(1, n + 3))
    idx_shape = shrink(idx_shape, ELEMENT_BUDGET // 2)
    extra = []
    if reduction is None:
        x = random_values(rng, dt, x_shape)
        upd = random_values(rng, dt, idx_shape)
    else:
        x, upd, extra = scatter_data(rng, dt, x_shape, idx_shape, reduction, any_order)
    idx = random_indices(rng, idt, idx_shape, n, rng.random() < 0.5, out_of_range=clamp or error)
    args = ["scatter", "--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy",
            "--axis", str(normalize_axis_arg(rng, axis, rank))] + extra
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx),
              "u.npy": maybe_fortran(rng, upd)}
    if error:
        return Case(None, args, inputs, expect_error=True)
    if reduction is None:
        return Case(None, args, inputs, scatter_reference(x, axis, idx, upd, clamp))
    targets = scatter_targets(x_shape, axis, idx, clamp)
    return reduced_case(args, inputs, x, targets, upd, reduction)


def make_scatter_nd(rng, dt, idt, rank, clamp=False, error=False, reduction="none",
                    any_order=False, explicit=True):
    """ONNX ScatterND: indices (m.., k) address x's first k dimensions;
    updates have the shape m.. ++ x.shape[k:]. Small first dimensions and
    several index tuples make duplicates common."""
    x_shape = random_shape(rng, rank, 400)
    k = int(rng.integers(1, rank + 1))
    inner = math.prod(x_shape[k:])
    m_rank = int(rng.integers(1, min(3, MAX_RANK - rank + k) + 1))
    m_shape = random_shape(rng, m_rank, max(1, min(40, ELEMENT_BUDGET // max(1, inner))),
                           max_dim=6)
    u_shape = m_shape + x_shape[k:]
    if explicit:
        x, upd, extra = scatter_data(rng, dt, x_shape, u_shape, reduction, any_order)
    else:
        x, upd, extra = random_values(rng, dt, x_shape), random_values(rng, dt, u_shape), []
    negative = rng.random() < 0.5
    cols = [random_indices(rng, idt, m_shape, x_shape[j], negative, out_of_range=clamp or error)
            for j in range(k)]
    if error and k > 1:
        # one component out of range is enough; keep the others valid now and then
        for j in range(k):
            if rng.random() < 0.5:
                cols[j] = random_indices(rng, idt, m_shape, x_shape[j], negative)
        j = int(rng.integers(0, k))
        cols[j] = random_indices(rng, idt, m_shape, x_shape[j], negative, out_of_range=True)
    idx = np.stack(cols, axis=-1)
    args = ["scatter-nd", "--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy"] + extra
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx),
              "u.npy": maybe_fortran(rng, upd)}
    if error:
        return Case(None, args, inputs, expect_error=True)
    targets = scatter_nd_targets(x_shape, idx, clamp)
    return reduced_case(args, inputs, x, targets, upd, reduction)


def make_gather_elements(rng, dt, idt, rank, clamp=False, error=False):
    """ONNX GatherElements: indices of the input's rank, sizes off the axis
    not larger than the input's, any count along the axis."""
    x_shape = random_shape(rng, rank, 400)
    axis = int(rng.integers(0, rank))
    n = x_shape[axis]
    idx_shape = [int(rng.integers(1, d + 1)) if rng.random() < 0.5 else d for d in x_shape]
    idx_shape[axis] = int(rng.integers(1, n + 4))
    idx_shape = shrink(idx_shape, ELEMENT_BUDGET // 2)
    x = random_values(rng, dt, x_shape)
    idx = random_indices(rng, idt, idx_shape, n, rng.random() < 0.5, out_of_range=clamp or error)
    args = ["gather-elements", "--input", "x.npy", "--indices", "i.npy",
            "--axis", str(normalize_axis_arg(rng, axis, rank))]
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx)}
    if error:
        return Case(None, args, inputs, expect_error=True)
    return Case(None, args, inputs, take_along_reference(x, axis, idx, clamp))


def make_gather_nd(rng, dt, idt, rank, clamp=False, error=False):
    """ONNX GatherND with batch_dims B: indices B.. ++ m.. ++ (k,), k in
    [1, r-B]; the output keeps B.. ++ m.. ++ x.shape[B+k:] (rank >= 1 here)."""
    x_shape = random_shape(rng, rank, 400)
    batch = int(rng.integers(0, rank))
    k = int(rng.integers(1, rank - batch + 1))
    tail = rank - batch - k                       # dimensions the output keeps from x
    max_m = min(2, MAX_RANK - 1 - batch, MAX_RANK - batch - tail)
    lo = 1 if batch + tail == 0 else 0            # no rank-0 outputs
    if max_m < lo:
        raise Skip()
    m_rank = int(rng.integers(lo, max_m + 1))
    rows = math.prod(x_shape[:batch]) * math.prod(x_shape[batch + k:])
    m_shape = random_shape(rng, m_rank, max(1, min(30, ELEMENT_BUDGET // max(1, rows))),
                           max_dim=5) if m_rank else []
    negative = rng.random() < 0.5
    lead = x_shape[:batch] + m_shape
    cols = [random_indices(rng, idt, lead, x_shape[batch + j], negative,
                           out_of_range=clamp or error) for j in range(k)]
    idx = np.stack(cols, axis=-1).reshape(lead + [k])
    x = random_values(rng, dt, x_shape)
    args = ["gather-nd", "--input", "x.npy", "--indices", "i.npy"]
    if batch or rng.random() < 0.3:
        args += ["--batch-dimensions", str(batch)]
    if clamp:
        args += ["--out-of-range", "clamp"]
    inputs = {"x.npy": maybe_fortran(rng, x), "i.npy": maybe_fortran(rng, idx)}
    if error:
        return Case(None, args, inputs, expect_error=True)
    return Case(None, args, inputs, gather_nd_reference(x, idx, batch, clamp))


def random_sizes(rng, n, count, zeros=0.25):
    """count sizes >= 0 adding up to n, zeros among them now and then."""
    cuts = sorted(int(c) for c in rng.integers(0, n + 1, count - 1))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
    for j in range(count):
        if sizes[j] and rng.random() < zeros:
            other = int(rng.integers(0, count))
            if other != j:
                sizes[other] += sizes[j]
                sizes[j] = 0
    assert sum(sizes) == n and min(sizes) >= 0
    return sizes


def make_split(rng, dt, rank, error=False):
    """ONNX Split with explicit sizes (zeros allowed); np.split at the
    running sums is the answer. With error the sizes miss the axis size, or
    one is negative, and no output may appear."""
    x_shape = random_shape(rng, rank, 400)
    axis = int(rng.integers(0, rank))
    n = x_shape[axis]
    count = int(rng.integers(1, 6))
    sizes = random_sizes(rng, n, count)
    if error:
        j = int(rng.integers(0, count))
        if rng.random() < 0.3 and count > 1:
            # a negative size, the others making up the sum
            neg = 1 + int(rng.integers(0, 3))
            sizes[(j + 1) % count] += sizes[j] + neg
            sizes[j] = -neg
        else:
            deltas = [1, 2, n + 1] + ([-1] if sizes[j] > 0 else [])
            sizes[j] += int(deltas[int(rng.integers(0, len(deltas)))])
    x = random_values(rng, dt, x_shape)
    outs = [f"y{j}.npy" for j in range(count)]
    args = ["split", "--input", "x.npy", "--axis", str(normalize_axis_arg(rng, axis, rank)),
            "--sizes", ",".join(map(str, sizes))]
    for o in outs:
        args += ["--output", o]
    inputs = {"x.npy": maybe_fortran(rng, x)}
    if error:
        assert sum(sizes) != n or min(sizes) < 0
        return Case(None, args, inputs, expect_error=True, outputs=outs,
                    error_kind="sizes that do not split the axis")
    bounds = np.cumsum(sizes)[:-1]
    return Case(None, args, inputs, np.split(x, bounds, axis=axis), outputs=outs)


def onnx_slice(s, e, step, n):
    """The Python slice of an ONNX Slice of start s, end e and step on an
    axis of n: a negative bound counts from the end; a forward end below 0 or
    a backward end below -1 after that is clamped, which a Python slice reads
    as "from the end" again."""
    ps = s + n if s < 0 else s
    pe = e + n if e < 0 else e
    if step > 0:
        ps, pe = min(max(ps, 0), n), min(max(pe, 0), n)
    else:
        ps = min(max(ps, 0), n - 1) if n > 0 else 0
        pe = min(max(pe, -1), n - 1) if n > 0 else -1
        if pe < 0:
            pe = None
    return slice(ps, pe, step)


def random_slice_axes(rng, rank):
    """The axes a random slice names: a few of them in any order (named,
    75%), or the first few (not named: the slice gives no axes)."""
    count = int(rng.integers(1, rank + 1))
    order = [int(a) for a in rng.permutation(rank)[:count]]
    named = rng.random() < 0.75
    if not named:
        order = list(range(count))
    return order, named


def make_slice(rng, dt, rank, error=False):
    """ONNX Slice: random axes (some negative, in any order, or none: the
    first ones), bounds inside, past and at the int64 limits, steps of either
    sign. NumPy's basic slicing is the answer (a Python slice clamps as ONNX
    does once a negative end below the axis stands for "before element 0").
    With error a step is 0 or an axis repeats."""
    x_shape = random_shape(rng, rank, 400)
    big = 2 ** 63 - 1
    order, named = random_slice_axes(rng, rank)
    starts, ends, steps, index = [], [], [], [slice(None)] * rank
    for a in order:
        n = x_shape[a]
        step = int(rng.choice([1, 1, 2, 3, -1, -2, -3, big, -big - 1]))
        bounds = [0, n, -1, -n - 2, n + 2, big, -big - 1] + [int(rng.integers(-n, n + 1)) for _ in range(4)]
        s, e = (int(rng.choice(bounds)) for _ in range(2))
        starts.append(s)
        ends.append(e)
        steps.append(step)
        index[a] = onnx_slice(s, e, step, n)
    x = random_values(rng, dt, x_shape)
    args = ["slice", "--input", "x.npy", "--starts", ",".join(map(str, starts)), "--ends", ",".join(map(str, ends))]
    axes = [normalize_axis_arg(rng, a, rank) for a in order]
    if error:
        if rng.random() < 0.5 or rank == 1:
            steps[int(rng.integers(0, len(steps)))] = 0
        else:
            axes.append(axes[0] - rank if axes[0] >= 0 else axes[0] + rank)
            starts.append(0)
            ends.append(1)
            steps.append(1)
            args[4], args[6] = ",".join(map(str, starts)), ",".join(map(str, ends))
        named = True
    if named:
        args += ["--axes", ",".join(map(str, axes))]
    if error or any(t != 1 for t in steps) or rng.random() < 0.3:
        args += ["--steps", ",".join(map(str, steps))]
    inputs = {"x.npy": maybe_fortran(rng, x)}
    if error:
        return Case(None, args, inputs, expect_error=True, error_kind="a step of 0 or an axis named twice")
    return Case(None, args, inputs, x[tuple(index)])


def make_tile(rng, dt, rank, error=False):
    """ONNX Tile / numpy.tile with one count per dimension (0 included); with
    error a count is negative or one is missing."""
    x_shape = random_shape(rng, rank, 60, max_dim=5)
    reps = [int(rng.integers(0, 4)) if rng.random() < 0.9 else 0 for _ in range(rank)]
    while math.prod(x_shape) * math.prod(reps) > ELEMENT_BUDGET:
        j = int(np.argmax(reps))
        reps[j] -= 1
    x = random_values(rng, dt, x_shape)
    if error:
        if rng.random() < 0.5:
            reps[int(rng.integers(0, rank))] = -1 - int(rng.integers(0, 3))
        else:
            reps = reps[:-1] if rank > 1 else reps + [1]
    args = ["tile", "--input", "x.npy", "--repeats", ",".join(map(str, reps))]
    inputs = {"x.npy": maybe_fortran(rng, x)}
    if error:
        return Case(None, args, inputs, expect_error=True, error_kind="repeats that break the rules")
    return Case(None, args, inputs, np.tile(x, reps))


CHAIN_INDEX_DTYPES = ["int32", "int64"]
CHAIN_KINDS = ["gather", "pad", "slice", "tile"]
CHAIN_INDEX_KINDS = ["gather-elements", "gather-nd", "scatter", "scatter-nd"]


def fields(rng, items):
    """A step's NAME=VALUE fields joined by ':', in a random order (the tool
    takes them in any)."""
    return ":".join(items[int(k)] for k in rng.permutation(len(items)))


def chain_gather(rng, cur, name, bad=False):
    """A gather step on cur: (its option value, its indices, the result).
    Indices of either sign, now and then clamped or in the DirectML form
    (index-dimensions=1: indices of cur's rank, all but the last size 1);
    with bad, at least one is out of range under the error policy (the result
    is then that of clamped indices, to go on with the shapes)."""
    axes = [a for a in range(cur.ndim) if cur.shape[a] > 0]
    if not axes:
        raise Skip()
    axis = axes[int(rng.integers(0, len(axes)))]
    n = cur.shape[axis]
    idt = CHAIN_INDEX_DTYPES[int(rng.integers(0, len(CHAIN_INDEX_DTYPES)))]
    dml = not bad and rng.random() < 0.25
    q = 1 if dml or cur.ndim >= 5 else int(rng.integers(1, 3))
    rest = cur.size // n
    idx_shape = random_shape(rng, q, max(1, min(40, ELEMENT_BUDGET // max(1, rest))), max_dim=6)
    clamp = not bad and rng.random() < 0.25
    idx = random_indices(rng, idt, idx_shape, n, rng.random() < 0.6, out_of_range=clamp or bad)
    out = np.take(cur, resolve_indices(idx, n, clamp or bad), axis=axis)
    items = [f"axis={normalize_axis_arg(rng, axis, cur.ndim)}"]
    if clamp:
        items.append("out-of-range=clamp")
    elif rng.random() < 0.2:
        items.append("out-of-range=error")
    if dml:
        idx = idx.reshape([1] * (cur.ndim - 1) + idx_shape)
        items.append("index-dimensions=1")
    return f"{name}:{fields(rng, items)}", maybe_fortran(rng, idx), out


def chain_pad(rng, dt, cur, bad=False):
    """A pad step on cur in a random mode (constant only on an empty tensor,
    which has nothing to fold), some sides cropped; with bad, one axis is
    cropped by more than it has. (option value, result or None)."""
    modes = PAD_MODES if cur.size > 0 else ["constant"]
    mode = modes[int(rng.integers(0, len(modes)))]
    start, end = [], []
    for n in cur.shape:
        hi = 3 if mode == "constant" else min(3 * n, 6)
        start.append(0 if rng.random() < 0.4 else int(rng.integers(0, hi + 1)))
        end.append(0 if rng.random() < 0.4 else int(rng.integers(0, hi + 1)))
    if rng.random() < 0.5:
        # a mirror or wrap keeps an element to fold; a constant pad now and then crops all
        keep = 0 if mode == "constant" and rng.random() < 0.15 else 1
        for i, n in enumerate(cur.shape):
            if n - keep < 1 or rng.random() < 0.5:
                continue
            total = int(rng.integers(1, n - keep + 1))
            cut = int(rng.integers(0, total + 1))
            start[i] = -cut if cut else start[i]
            end[i] = -(total - cut) if total - cut else end[i]
    while math.prod(n + s + e for n, s, e in zip(cur.shape, start, end)) > ELEMENT_BUDGET:
        i = max(range(cur.ndim), key=lambda j: max(start[j], end[j]))
        start[i], end[i] = min(start[i], start[i] // 2), min(end[i], end[i] // 2)
    if bad:
        i = int(rng.integers(0, cur.ndim))
        total = cur.shape[i] + int(rng.integers(1, 4))
        cut = int(rng.integers(0, total + 1))
        start[i], end[i] = -cut, -(total - cut)
    items = [f"mode={mode}", "start=" + ",".join(map(str, start)), "end=" + ",".join(map(str, end))]
    value = None
    if mode == "constant":
        choices = constant_values(cur.dtype)
        text = choices[int(rng.integers(0, len(choices)))]
        value = constant_as(cur.dtype, text)
        items.append(f"value={text}")
    spec = fields(rng, items)
    return spec, None if bad else crop_pad_reference(cur, start, end, mode, value)


def chain_slice(rng, cur):
    """A slice step on cur: some axes (named or the first ones), bounds
    inside and past the axis, steps of either sign; mostly a slice that keeps
    something. (option value, result)."""
    rank = cur.ndim
    order, named = random_slice_axes(rng, rank)
    starts, ends, steps, index = [], [], [], [slice(None)] * rank
    keep = rng.random() < 0.85
    for a in order:
        n = cur.shape[a]
        step = int(rng.choice([1, 1, 2, 3, -1, -2, -3]))
        bounds = [0, n, -1, -n - 2, n + 2] + [int(rng.integers(-n, n + 1)) for _ in range(3)]
        for _ in range(8):
            s, e = (int(rng.choice(bounds)) for _ in range(2))
            if not keep or len(range(n)[onnx_slice(s, e, step, n)]) > 0:
                break
        starts.append(s)
        ends.append(e)
        steps.append(step)
        index[a] = onnx_slice(s, e, step, n)
    items = ["starts=" + ",".join(map(str, starts)), "ends=" + ",".join(map(str, ends))]
    if named:
        items.append("axes=" + ",".join(str(normalize_axis_arg(rng, a, rank)) for a in order))
    if any(t != 1 for t in steps) or rng.random() < 0.3:
        items.append("steps=" + ",".join(map(str, steps)))
    return fields(rng, items), cur[tuple(index)]


def chain_tile(rng, cur):
    """A tile step on cur: 1 to 3 repeats per axis, now and then 0.
    (option value, result)."""
    reps = [0 if rng.random() < 0.03 else int(rng.integers(1, 4)) for _ in range(cur.ndim)]
    while cur.size * math.prod(reps) > ELEMENT_BUDGET:
        reps[int(np.argmax(reps))] -= 1
    return "repeats=" + ",".join(map(str, reps)), np.tile(cur, reps)


def chain_index_step(rng, dt, cur, kind, name, bad=False):
    """An index-driven step on cur (which has elements), which splits the
    chain: (its option value, its files, the result). gather-elements and
    scatter along a random axis (indices of cur's rank, not larger off the
    axis), gather-nd and scatter-nd with tuples of k components (the output
    of rank 1 or more); indices of either sign, now and then clamped; a
    scatter's updates at updates=U (the last one to reach an element wins).
    With bad, an index is out of range under the error policy (the result is
    then that of clamped indices, to go on with the shapes)."""
    idt = CHAIN_INDEX_DTYPES[int(rng.integers(0, len(CHAIN_INDEX_DTYPES)))]
    clamp = not bad and rng.random() < 0.25
    negative = rng.random() < 0.5
    resolve = clamp or bad
    files, items = {}, []
    if kind in ("gather-elements", "scatter"):
        axis = int(rng.integers(0, cur.ndim))
        n = cur.shape[axis]
        shape = [int(rng.integers(1, d + 1)) if rng.random() < 0.5 else d for d in cur.shape]
        shape[axis] = int(rng.integers(1, 4) if kind == "gather-elements" else rng.integers(1, n + 1))
        shape = shrink(shape, ELEMENT_BUDGET // 2)
        idx = random_indices(rng, idt, shape, n, negative, out_of_range=resolve)
        items.append(f"axis={normalize_axis_arg(rng, axis, cur.ndim)}")
        if kind == "gather-elements":
            out = take_along_reference(cur, axis, idx, resolve)
        else:
            upd = random_values(rng, dt, shape)
            out = scatter_reference(cur, axis, idx, upd, resolve)
    else:
        k = int(rng.integers(1, cur.ndim + 1))
        lead = [] if k < cur.ndim and rng.random() < 0.3 else [int(rng.integers(1, 4))]
        cols = [random_indices(rng, idt, lead, cur.shape[j], negative, out_of_range=False) for j in range(k)]
        if resolve:               # (at least one component out of range)
            j = int(rng.integers(0, k))
            cols[j] = random_indices(rng, idt, lead, cur.shape[j], negative, out_of_range=True)
        idx = np.stack(cols, axis=-1).reshape(lead + [k])
        if kind == "gather-nd":
            out = gather_nd_reference(cur, idx, 0, resolve)
        else:
            upd = random_values(rng, dt, lead + list(cur.shape[k:]))
            targets = scatter_nd_targets(cur.shape, idx, resolve)
            out = np.ascontiguousarray(cur).copy()
            flat, values = out.reshape(-1), np.ascontiguousarray(upd).reshape(-1)
            for t, v in zip(targets, range(len(values))):    # in order: the last write wins
                flat[t] = values[v]
    if clamp:
        items.append("out-of-range=clamp")
    elif rng.random() < 0.2:
        items.append("out-of-range=error")
    files[name] = maybe_fortran(rng, idx)
    spec = name
    if kind in ("scatter", "scatter-nd"):
        uname = name.replace("i", "u", 1)
        files[uname] = maybe_fortran(rng, upd)
        items.append(f"updates={uname}")
    if items:
        spec += ":" + fields(rng, items)
    return spec, files, out


def make_chain(rng, dt, error=None):
    """`strix chain`: 1 to 4 random steps over one input, perhaps joined with
    one or two other tensors; the answer applies each step's reference in
    turn (np.take, crop_pad_reference, basic slicing, np.tile, then
    np.concatenate). Now and then a step is index-driven (chain_index_step).
    With error "crop" or "index", the chain's last step crops an axis by more
    than it has, or one of its gathers or index-driven steps holds an index
    out of range (and later steps follow): exit 2, naming that step."""
    rank = int(rng.integers(1, 5))
    x = random_values(rng, dt, random_shape(rng, rank, 300))
    inputs = {"x.npy": maybe_fortran(rng, x)}
    count = int(rng.integers(1, 5))
    bad_at = int(rng.integers(0, count)) if error else -1
    if error == "crop":
        count = bad_at + 1                # (what follows a refused step has no shape)
    cur, steps, bad_kind = x, [], None
    for k in range(count):
        bad = k == bad_at
        indexed = cur.size > 0 and rng.random() < 0.25
        if bad:
            kind = "pad" if error == "crop" else "gather" if not indexed else \
                CHAIN_INDEX_KINDS[int(rng.integers(0, len(CHAIN_INDEX_KINDS)))]
            bad_kind = kind
        elif indexed:
            kind = CHAIN_INDEX_KINDS[int(rng.integers(0, len(CHAIN_INDEX_KINDS)))]
        else:
            kinds = CHAIN_KINDS if cur.size > 0 else ["pad", "slice", "tile"]
            kind = kinds[int(rng.integers(0, len(kinds)))]
        if kind in CHAIN_INDEX_KINDS:
            spec, files, cur = chain_index_step(rng, dt, cur, kind, f"i{k}.npy", bad)
            inputs.update(files)
        elif kind == "gather":
            name = f"i{k}.npy"
            spec, inputs[name], cur = chain_gather(rng, cur, name, bad)
        elif kind == "pad":
            spec, cur = chain_pad(rng, dt, cur, bad)
        elif kind == "slice":
            spec, cur = chain_slice(rng, cur)
        else:
            spec, cur = chain_tile(rng, cur)
        steps += [f"--{kind}", spec]
    args = ["chain"]
    if rng.random() < 0.8:                # (--input may come anywhere)
        args += ["--input", "x.npy"] + steps
    else:
        args += steps + ["--input", "x.npy"]
    if error != "crop" and rng.random() < 0.5:
        axis = int(rng.integers(0, cur.ndim))
        parts = [cur]
        for j in range(int(rng.integers(1, 3))):
            shape = list(cur.shape)
            shape[axis] = int(rng.integers(0, 5))
            name = f"y{j}.npy"
            parts.append(random_values(rng, dt, shape))
            inputs[name] = maybe_fortran(rng, parts[-1])
            args += ["--join", name]
        if axis != 0 or rng.random() < 0.5:
            args += ["--join-axis", str(normalize_axis_arg(rng, axis, cur.ndim))]
        cur = np.concatenate(parts, axis=axis)
    if error:
        case = Case(None, args, inputs, expect_error=True,
                    error_kind="a crop larger than its axis" if error == "crop" else "an out-of-range index")
        case.error_text = f"strix::{bad_kind} (chain step {bad_at + 1})"
        case.keep_output = True
        return case
    return Case(None, args, inputs, cur)


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
    if kind == "gather-elements-empty":
        # no index along the axis, or a zero-size dimension off it in both tensors
        x_shape = random_shape(rng, rank, 200)
        axis = int(rng.integers(0, rank))
        idx_shape = list(x_shape)
        d = int(rng.integers(0, rank))
        idx_shape[d] = 0
        if d != axis and rng.random() < 0.5:
            x_shape[d] = 0
        x = random_values(rng, dt, x_shape)
        idx = np.zeros(idx_shape, dtype=idt)
        args = ["gather-elements", "--input", "x.npy", "--indices", "i.npy", "--axis", str(axis)]
        return Case(None, args, {"x.npy": x, "i.npy": idx}, take_along_reference(x, axis, idx))
    if kind == "gather-nd-empty":
        x_shape = random_shape(rng, rank, 200)
        k = int(rng.integers(1, rank + 1))
        idx = np.zeros([0, k], dtype=idt)
        x = random_values(rng, dt, x_shape)
        args = ["gather-nd", "--input", "x.npy", "--indices", "i.npy"]
        return Case(None, args, {"x.npy": x, "i.npy": idx},
                    np.zeros([0] + x_shape[k:], dtype=dt))
    if kind in ("scatter-nd-empty", "scatter-reduce-empty"):
        x_shape = random_shape(rng, rank, 200)
        red = REDUCTIONS[int(rng.integers(0, len(REDUCTIONS)))]
        x = random_values(rng, dt, x_shape)
        if kind == "scatter-nd-empty":
            k = int(rng.integers(1, rank + 1))
            ishape, ushape = [0, k], [0] + x_shape[k:]
            args = ["scatter-nd"]
        else:
            axis = int(rng.integers(0, rank))
            ishape = list(x_shape)
            ishape[axis] = 0
            ushape = ishape
            args = ["scatter", "--axis", str(axis)]
        args += ["--input", "x.npy", "--indices", "i.npy", "--updates", "u.npy",
                 "--reduction", red]
        return Case(None, args, {"x.npy": x, "i.npy": np.zeros(ishape, idt),
                                 "u.npy": np.zeros(ushape, dt)}, x.copy())
    if kind == "split-empty-parts":
        # zero sizes around the parts, and now and then an input with nothing on the axis
        x_shape = random_shape(rng, rank, 200)
        axis = int(rng.integers(0, rank))
        if rng.random() < 0.4:
            x_shape[axis] = 0
        n = x_shape[axis]
        sizes = [0, n, 0] if rng.random() < 0.5 else [0] * int(rng.integers(1, 4)) + [n]
        x = random_values(rng, dt, x_shape)
        outs = [f"y{j}.npy" for j in range(len(sizes))]
        args = ["split", "--input", "x.npy", "--axis", str(axis),
                "--sizes", ",".join(map(str, sizes))]
        for o in outs:
            args += ["--output", o]
        return Case(None, args, {"x.npy": x}, np.split(x, np.cumsum(sizes)[:-1], axis=axis),
                    outputs=outs)
    if kind == "pad-crop-to-empty":
        # one axis cropped away entirely, then perhaps refilled with the constant
        x_shape = random_shape(rng, rank, 200)
        d = int(rng.integers(0, rank))
        n = x_shape[d]
        start = [int(v) for v in rng.integers(0, 2, rank)]
        end = [int(v) for v in rng.integers(0, 2, rank)]
        cut = int(rng.integers(0, n + 1))
        start[d], end[d] = -cut, -(n - cut)
        if rng.random() < 0.5:
            if start[d] == 0:
                start[d] = 2
            else:
                end[d] = 2
        x = random_values(rng, dt, x_shape)
        args = ["pad", "--input", "x.npy", "--mode", "constant", "--value", "7",
                "--start", ",".join(map(str, start)), "--end", ",".join(map(str, end))]
        return Case(None, args, {"x.npy": x},
                    crop_pad_reference(x, start, end, "constant", np.array(7, dtype=dt)))
    raise ValueError(kind)


EDGE_KINDS = ["gather-empty-indices", "gather-scalar-index", "join-zero-piece",
              "pad-zero-size", "scatter-empty", "gather-elements-empty", "gather-nd-empty",
              "scatter-nd-empty", "scatter-reduce-empty", "split-empty-parts",
              "pad-crop-to-empty"]


def plan(args):
    """The list of (name, factory) pairs; factory(rng) -> Case."""
    out = []
    ranks = range(1, MAX_RANK + 1)
    # only the CPU promises row-major order for float add/mul without --deterministic
    any_order = args.backend != "cpu"

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
                add(f"gather-elements/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r: make_gather_elements(rng, dt, idt, r))
                add(f"gather-nd/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r: make_gather_nd(rng, dt, idt, r))
                add(f"scatter-nd/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r: make_scatter_nd(rng, dt, idt, r, explicit=False))
            add(f"join/{dt}/r{r}", lambda rng, dt=dt, r=r: make_join(rng, dt, r))
            add(f"split/{dt}/r{r}", lambda rng, dt=dt, r=r: make_split(rng, dt, r))
            add(f"slice/{dt}/r{r}", lambda rng, dt=dt, r=r: make_slice(rng, dt, r))
            add(f"tile/{dt}/r{r}", lambda rng, dt=dt, r=r: make_tile(rng, dt, r))
            for mode in PAD_MODES:
                add(f"pad-{mode}/{dt}/r{r}",
                    lambda rng, dt=dt, r=r, mode=mode: make_pad(rng, dt, r, mode))
                add(f"pad-{mode}-crop/{dt}/r{r}",
                    lambda rng, dt=dt, r=r, mode=mode: make_pad(rng, dt, r, mode, crop=True))
            # each reduction, with the index types taking turns over the ranks
            for k, red in enumerate(REDUCTIONS):
                idt = INDEX_DTYPES[(r + k) % len(INDEX_DTYPES)]
                add(f"scatter-{red}/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r, red=red:
                        make_scatter(rng, dt, idt, r, reduction=red, any_order=any_order))
                add(f"scatter-nd-{red}/{dt}/{idt}/r{r}",
                    lambda rng, dt=dt, idt=idt, r=r, red=red:
                        make_scatter_nd(rng, dt, idt, r, reduction=red, any_order=any_order))

    def some_rank(rng):
        return int(rng.integers(1, 6))

    def some_reduction(rng):
        return REDUCTIONS[int(rng.integers(0, len(REDUCTIONS)))]

    # the out-of-range policies: a few per operator, index type and element type
    for dt in DTYPES:
        for idt in INDEX_DTYPES:
            add(f"gather-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather(rng, dt, idt, some_rank(rng), clamp=True))
            add(f"gather-dml-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather_dml(rng, dt, idt, some_rank(rng), clamp=True))
            add(f"scatter-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter(rng, dt, idt, some_rank(rng), clamp=True))
            add(f"gather-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather(rng, dt, idt, some_rank(rng), error=True))
            add(f"scatter-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter(rng, dt, idt, some_rank(rng), error=True))
            add(f"gather-elements-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather_elements(rng, dt, idt, some_rank(rng), clamp=True))
            add(f"gather-elements-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather_elements(rng, dt, idt, some_rank(rng), error=True))
            add(f"gather-nd-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather_nd(rng, dt, idt, some_rank(rng), clamp=True))
            add(f"gather-nd-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_gather_nd(rng, dt, idt, some_rank(rng), error=True))
            add(f"scatter-nd-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter_nd(
                    rng, dt, idt, some_rank(rng), clamp=True, reduction=some_reduction(rng),
                    any_order=any_order))
            add(f"scatter-nd-error/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter_nd(
                    rng, dt, idt, some_rank(rng), error=True, reduction=some_reduction(rng),
                    any_order=any_order))
            add(f"scatter-reduce-clamp/{dt}/{idt}",
                lambda rng, dt=dt, idt=idt: make_scatter(
                    rng, dt, idt, some_rank(rng), clamp=True, reduction=some_reduction(rng),
                    any_order=any_order))
        add(f"join-clamp/{dt}",
            lambda rng, dt=dt: make_join(rng, dt, some_rank(rng), clamp=True))
        add(f"pad-clamp/{dt}",
            lambda rng, dt=dt: make_pad(rng, dt, some_rank(rng),
                                        PAD_MODES[int(rng.integers(0, len(PAD_MODES)))], clamp=True))
        # other bad input that must write nothing
        add(f"split-error/{dt}",
            lambda rng, dt=dt: make_split(rng, dt, some_rank(rng), error=True))
        add(f"slice-error/{dt}",
            lambda rng, dt=dt: make_slice(rng, dt, some_rank(rng), error=True))
        add(f"tile-error/{dt}",
            lambda rng, dt=dt: make_tile(rng, dt, some_rank(rng), error=True))
        add(f"pad-crop-error/{dt}",
            lambda rng, dt=dt: make_pad(rng, dt, some_rank(rng),
                                        PAD_MODES[int(rng.integers(0, len(PAD_MODES)))], error=True))
    # chains of moves: a new random chain per case and element type, and chains that break a
    # rule at one step
    for dt in DTYPES:
        add(f"chain/{dt}", lambda rng, dt=dt: make_chain(rng, dt))
    for dt in ["float32", "int8", "uint64"]:
        add(f"chain/error-crop/{dt}", lambda rng, dt=dt: make_chain(rng, dt, error="crop"))
    for dt in ["float64", "int32", "uint16"]:
        add(f"chain/error-index/{dt}", lambda rng, dt=dt: make_chain(rng, dt, error="index"))
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


def bits_equal(a, b, any_nan=None):
    """Same element type, shape and bits; where the mask any_nan is set, two
    NaNs are equal whatever their bits."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    u = BITS[a.dtype.itemsize]
    same = np.ascontiguousarray(a).view(u) == np.ascontiguousarray(b).view(u)
    if any_nan is not None:
        same |= any_nan & np.isnan(a) & np.isnan(b)
    return bool(np.all(same))


def npy_fortran_flag(path):
    with open(path, "rb") as f:
        major, _ = np.lib.format.read_magic(f)
        if major == 1:
            _, fortran, _ = np.lib.format.read_array_header_1_0(f)
        else:
            _, fortran, _ = np.lib.format.read_array_header_2_0(f)
    return fortran


def describe_diff(got, exp, any_nan=None):
    if got.dtype != exp.dtype:
        return f"dtype {got.dtype} != expected {exp.dtype}"
    if got.shape != exp.shape:
        return f"shape {got.shape} != expected {exp.shape}"
    u = BITS[got.dtype.itemsize]
    g = np.ascontiguousarray(got).view(u)
    e = np.ascontiguousarray(exp).view(u)
    differ = g != e
    if any_nan is not None:
        differ &= ~(any_nan & np.isnan(got) & np.isnan(exp))
    bad = np.argwhere(differ)
    first = tuple(int(v) for v in bad[0])
    return (f"{len(bad)} of {got.size} elements differ; first at {first}: "
            f"got {got[first]!r} (0x{int(g[first]):x}), expected {exp[first]!r} (0x{int(e[first]):x})")


def refused_on(profile, backend, case):
    """Whether the tool must refuse the case: a float64 add or mul reduction on
    the Vulkan baseline path (no shaderFloat64)."""
    if profile != "baseline" or backend == "cpu" or "--reduction" not in case.args:
        return False
    reduction = case.args[case.args.index("--reduction") + 1]
    # (no update: nothing to compute, the output is the input)
    return reduction in ("add", "mul") and any(a.dtype == np.float64 for a in case.inputs.values()) and \
        all(a.size > 0 for a in case.inputs.values())


def run_case(exe, backend, profile, root, number, name, factory, seed):
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
    names = case.outputs or ["out.npy"]
    outs = [os.path.join(d, o) for o in names]
    # (a chain's gather names its index file before its fields: "i0.npy:axis=1", and a
    # scatter its updates among them: "i0.npy:updates=u0.npy:axis=1")
    def placed(a):
        if a in case.inputs or a in names:
            return os.path.join(d, a)
        parts = a.split(":")
        if parts[0] not in case.inputs:
            return a
        parts[0] = os.path.join(d, parts[0])
        return ":".join("updates=" + os.path.join(d, p[8:]) if p.startswith("updates=") and p[8:] in case.inputs
                        else p for p in parts)
    argv = [exe] + [placed(a) for a in case.args]
    if case.outputs is None:
        argv += ["--output", outs[0]]
    if backend:
        argv += ["--backend", backend]
    if profile:
        argv += ["--vulkan-profile", profile]
    cmd = shlex.join(argv)
    before = None
    if case.keep_output:
        np.save(outs[0], np.arange(5, dtype=np.int16))
        with open(outs[0], "rb") as f:
            before = f.read()
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ("fail", case.name, "timed out", cmd)
    err = proc.stderr.decode(errors="replace").strip()
    if refused_on(profile, backend, case) and not case.expect_error:
        if proc.returncode != 2 or "need shaderFloat64" not in err:
            return ("fail", case.name, f"expected the baseline path to refuse a float64 add/mul reduction (exit 2), got {proc.returncode}: {err[:200]}", cmd)
        if any(os.path.exists(o) for o in outs):
            return ("fail", case.name, "an output file was written although the run was refused", cmd)
        shutil.rmtree(d, ignore_errors=True)
        return ("ok", case.name, None, None)
    if case.expect_error:
        lines = [ln for ln in proc.stderr.decode(errors="replace").splitlines()]
        if proc.returncode != 2:
            return ("fail", case.name, f"expected exit 2 for {case.error_kind}, got {proc.returncode}", cmd)
        if before is not None:
            with open(outs[0], "rb") as f:
                if f.read() != before:
                    return ("fail", case.name, "the output file was changed although the run failed", cmd)
        elif any(os.path.exists(o) for o in outs):
            return ("fail", case.name, "an output file was written although the run failed", cmd)
        if len(lines) != 1 or not lines[0].strip():
            return ("fail", case.name, f"expected one line on stderr, got {len(lines)}: {err[:200]!r}", cmd)
        if "unknown command" in err or "unknown option" in err:
            return ("fail", case.name, f"refused before {case.error_kind} was seen: {err[:200]}", cmd)
        if case.error_text and case.error_text not in err:
            return ("fail", case.name, f"expected the error to name {case.error_text!r}: {err[:200]}", cmd)
        shutil.rmtree(d, ignore_errors=True)
        return ("ok", case.name, None, None)
    if proc.returncode != 0:
        return ("fail", case.name, f"exit {proc.returncode}: {err[:300]}", cmd)
    expected = case.expected if case.outputs is not None else [case.expected]
    for k, (out, exp) in enumerate(zip(outs, expected)):
        which = f"output {k}: " if case.outputs is not None else ""
        try:
            got = np.load(out, allow_pickle=False)
            fortran = npy_fortran_flag(out)
        except Exception as e:  # noqa: BLE001 - any unreadable output is a failure
            return ("fail", case.name, f"{which}output unreadable: {e}", cmd)
        if fortran:
            return ("fail", case.name, f"{which}output written in Fortran order", cmd)
        if not bits_equal(got, exp, case.any_nan):
            return ("fail", case.name, which + describe_diff(got, exp, case.any_nan), cmd)
    if backend and backend != "cpu" and "--deterministic" in case.args:
        # on a device, --deterministic promises the CPU's very bits
        cpu_argv = [a if a != outs[0] else os.path.join(d, "cpu.npy") for a in argv]
        if "--vulkan-profile" in cpu_argv:  # (the CPU has no profile)
            k = cpu_argv.index("--vulkan-profile")
            del cpu_argv[k:k + 2]
        cpu_argv[cpu_argv.index("--backend") + 1] = "cpu"
        proc = subprocess.run(cpu_argv, capture_output=True, timeout=120)
        if proc.returncode != 0:
            return ("fail", case.name, "the same run on the CPU failed: "
                    + proc.stderr.decode(errors="replace").strip()[:300], shlex.join(cpu_argv))
        got = np.load(outs[0], allow_pickle=False)
        cpu = np.load(os.path.join(d, "cpu.npy"), allow_pickle=False)
        if not bits_equal(got, cpu):
            return ("fail", case.name, f"--deterministic on {backend} differs from the CPU: "
                    + describe_diff(got, cpu).replace("expected", "cpu"), cmd)
    shutil.rmtree(d, ignore_errors=True)
    return ("ok", case.name, None, None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("strix", help="path of the strix executable")
    ap.add_argument("--cases", type=int, default=2, help="cases per combination (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--backend", default=None, help="backend to pass to the tool (default: the tool's)")
    ap.add_argument("--vulkan-profile", default=None, choices=["full", "baseline"],
                    help="Vulkan profile to pass to the tool (default: STRIX_VULKAN_PROFILE's, else the tool's)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="tool runs in parallel")
    ap.add_argument("--limit", type=int, default=0,
                    help="run only this many combinations, drawn at random with the seed, each kind in turn")
    ap.add_argument("--filter", default="", help="run only combinations whose name contains this")
    ap.add_argument("--edge-cases", action="store_true",
                    help="also zero-size tensors, 0-d indices, empty split parts and "
                         "pads that crop an axis away")
    ap.add_argument("--keep", default=None, help="directory for the case files (kept)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    args = ap.parse_args(argv)
    # the profile the tool's Vulkan contexts take: the flag, else the environment's
    profile = args.vulkan_profile or os.environ.get("STRIX_VULKAN_PROFILE") or None

    exe = os.path.abspath(args.strix)
    if not os.access(exe, os.X_OK):
        print(f"check_tool: {args.strix} is not an executable", file=sys.stderr)
        return 2
    combos = [c for c in plan(args) if args.filter in c[0]]
    if args.limit and args.limit < len(combos):
        # a random subset that takes every kind of case (the name's first part: an operator with
        # its mode, reduction or policy) in turn, so that a few hundred reach them all
        rng = np.random.default_rng(args.seed)
        kinds = {}
        for i, c in enumerate(combos):
            kinds.setdefault(c[0].split("/")[0], []).append(i)
        queues = [list(rng.permutation(v)) for v in kinds.values()]
        queues = [queues[k] for k in rng.permutation(len(queues))]
        pick = []
        while len(pick) < args.limit:
            for q in queues:
                if q and len(pick) < args.limit:
                    pick.append(int(q.pop()))
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
        futures = [pool.submit(run_case, exe, args.backend, profile, root, k, name, fn, args.seed)
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
