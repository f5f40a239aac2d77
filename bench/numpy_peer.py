#!/usr/bin/python3
"""The NumPy peer of strix-bench's CPU cases: the same cases on the same sizes, the same bytes
formulas and the same JSON, beside a copy of the same bytes (np.copyto of bytes/2) measured in the
same run, in turns with the operator. Ratio = copy time / operator time (above 1: faster than a copy).

    numpy_peer.py [--quick] [--json FILE] [--filter TEXT]

NumPy calls: np.take (gather), np.take_along_axis (gather_elements), np.concatenate with out=
(join), [a.copy() for a in np.split(...)] (split: np.split makes views), np.pad (every mode),
out = x.copy() then np.put_along_axis (scatter, no reduction) or np.add.at (scatter add),
table[i0, i1] / table[i0] with the index tuples' columns (gather_nd), out = x.copy() then
out[i0] = rows (scatter_nd of rows) or np.add.at(out, (i0, i1), u) (scatter_nd add).
NumPy runs on one thread. Times: time.perf_counter, the median of 9 repetitions after a warm-up,
the copy timed in turns with the operator; inputs rotate between two copies (one beyond 512 MiB).
"""
import argparse
import sys

import numpy as np

from peer_common import copies_for, cpu_name, cpu_sizes, measure_in_turns, print_header, record, shape_name, size_name, \
    sweep_inner, sweep_sizes, write_json


class Copier:
    """np.copyto of bytes/2 from rotating sources: the copy baseline of one case."""

    def __init__(self, nbytes):
        half = max(int(nbytes) // 2, 1)
        self.src = [np.ones(half, np.uint8) for _ in range(copies_for(half))]
        self.dst = np.zeros(half, np.uint8)

    def __call__(self, k):
        np.copyto(self.dst, self.src[k % len(self.src)])


def measure(nbytes, inner, f):
    """(nbytes, median seconds of one call of f(k), inner, median seconds of the copy baseline)."""
    secs, copy_s = measure_in_turns(nbytes, inner, f, Copier(nbytes))
    return nbytes, secs, inner, copy_s


class Runner:
    def __init__(self, filt):
        self.filter, self.results = filt, []
        print_header()

    def run(self, op, name, sweep, body):
        if self.filter and self.filter not in f"{op} {name}":
            return
        try:
            nbytes, secs, inner, copy_s = body()
        except Exception as e:  # noqa: BLE001 - report and go on, as strix-bench does
            print(f"{op:26s} {name:38s} skipped: {e}", flush=True)
            return
        record(self.results, op, name, nbytes, secs, copy_s, sweep, "np.copyto")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    z = cpu_sizes(a.quick)
    rng = np.random.default_rng(7)
    f32, f16 = np.float32, np.float16
    device = f"{cpu_name()}, numpy {np.__version__}, 1 thread"
    print(f"backend: numpy, device: {device}{', quick' if a.quick else ''}")
    R = Runner(a.filter)

    def ins(dtype, shape, extra=0):
        n = copies_for(int(np.prod(shape)) * np.dtype(dtype).itemsize + extra)
        # written, not np.zeros: zeros from calloc map every page to the one shared zero page,
        # whose reads hit the cache and made NumPy look up to twice as fast as memory allows
        return [np.ones(shape, dtype) for _ in range(n)]

    def embedding():
        rows, dim = z["table"]
        tab = ins(f32, z["table"])
        idx = [rng.integers(0, rows, z["lookups"], dtype=np.int64) for _ in tab]
        nbytes = 2 * z["lookups"] * dim * 4 + z["lookups"] * 8
        return measure(nbytes, 1, lambda k: np.take(tab[k % len(tab)], idx[k % len(idx)], axis=0))
    R.run("gather", "embedding rows " + shape_name(z["table"]), False, embedding)

    m = z["matrix"]
    mbytes = m[0] * m[1] * 4

    def gather_last():
        x = ins(f32, m)
        perm = rng.permutation(m[1]).astype(np.int64)
        return measure(2 * mbytes + m[1] * 8, 1, lambda k: np.take(x[k % len(x)], perm, axis=1))
    R.run("gather", "last axis, permuted " + shape_name(m), False, gather_last)

    def gather_elements():
        x = ins(f32, m, m[0] * m[1] * 8)
        idx = [rng.integers(0, m[1], m, dtype=np.int64) for _ in x]
        return measure(2 * mbytes + m[0] * m[1] * 8, 1, lambda k: np.take_along_axis(x[k % len(x)], idx[k % len(idx)], axis=1))
    R.run("gather_elements", "last axis " + shape_name(m), False, gather_elements)

    e = z["elements"]
    for axis in (0, 2, 3):
        for itype in (np.int64, np.int32):
            def gather_axis(axis=axis, itype=itype):
                ib = int(np.prod(e)) * np.dtype(itype).itemsize
                x = ins(f32, e, ib)
                idx = [rng.integers(0, e[axis], e, dtype=np.int64).astype(itype) for _ in x]
                nbytes = 2 * int(np.prod(e)) * 4 + ib
                return measure(nbytes, 1, lambda k: np.take_along_axis(x[k % len(x)], idx[k % len(idx)], axis=axis))
            R.run("gather_elements", f"axis {axis} random {shape_name(e)} {np.dtype(itype).name}", False, gather_axis)

    pt, pairs = z["pairs_table"], z["pairs"]

    def gather_nd_pairs():
        tab = ins(f32, pt)
        idx = [np.stack([rng.integers(0, pt[0], pairs), rng.integers(0, pt[1], pairs)], axis=1) for _ in tab]
        # GatherND's tuples are the last axis of the indices: NumPy indexes with one array per column
        return measure(pairs * (4 + 4 + 2 * 8), 1, lambda k: tab[k % len(tab)][idx[k % len(idx)][:, 0], idx[k % len(idx)][:, 1]])
    R.run("gather_nd", f"{pairs >> 10}K pairs from {shape_name(pt)}", False, gather_nd_pairs)

    def gather_nd_rows():
        rows, dim = z["table"]
        tab = ins(f32, z["table"])
        idx = [rng.integers(0, rows, (z["lookups"], 1), dtype=np.int64) for _ in tab]
        nbytes = 2 * z["lookups"] * dim * 4 + z["lookups"] * 8
        return measure(nbytes, 1, lambda k: tab[k % len(tab)][idx[k % len(idx)][:, 0]])
    R.run("gather_nd", f"{z['lookups']} rows of {shape_name(z['table'])}", False, gather_nd_rows)

    for axis in (0, 1):
        part = list(m)
        part[axis] //= 4

        def join(axis=axis, part=tuple(part)):
            xs = [ins(f32, part, 3 * part[0] * part[1] * 4) for _ in range(4)]
            out = np.empty(m, f32)
            return measure(2 * mbytes, 1, lambda k: np.concatenate([p[k % len(p)] for p in xs], axis=axis, out=out))
        R.run("join", ("4 inputs, innermost axis " if axis else "4 inputs, outer axis ") + shape_name(m), False, join)

    def kv():
        s = z["kv"]
        one, whole = (s[0], s[1], 1, s[3]), (s[0], s[1], s[2] + 1, s[3])
        cache, step = ins(f16, s), ins(f16, one)
        out = np.empty(whole, f16)
        nbytes = 2 * (np.prod(s) + np.prod(one) + np.prod(whole))
        return measure(int(nbytes), 1, lambda k: np.concatenate([cache[k % len(cache)], step[k % len(step)]], axis=2, out=out))
    R.run("join", "KV append f16 " + shape_name(z["kv"]) + "+1", False, kv)

    for axis in (0, 1):
        def split(axis=axis):
            x = ins(f32, m)
            return measure(2 * mbytes, 1, lambda k: [p.copy() for p in np.split(x[k % len(x)], 4, axis=axis)])
        R.run("split", ("4 outputs, innermost axis " if axis else "4 outputs, outer axis ") + shape_name(m), False, split)

    img = z["image"]
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        def pad(mode=mode):
            x = ins(f32, img)
            o = (img[0], img[1], img[2] + 6, img[3] + 6)
            nbytes = 4 * (np.prod(img) + np.prod(o))
            widths = ((0, 0), (0, 0), (3, 3), (3, 3))
            return measure(int(nbytes), 1, lambda k: np.pad(x[k % len(x)], widths, mode=mode))
        R.run("pad", f"{mode} 3 " + shape_name(img), False, pad)

    n = z["updates"]
    for name, targets, red in (("unique, none", n, "none"), ("unique, add", n, "add"), ("onto 64K, add", 65536, "add")):
        def scatter(targets=targets, red=red):
            idx = [rng.permutation(n).astype(np.int64) if targets == n else rng.integers(0, targets, n, dtype=np.int64) for _ in range(2)]
            upd = np.ones(n, f32)
            x = ins(f32, (targets,))

            def f(k):
                out = x[k % len(x)].copy()
                if red == "none":
                    np.put_along_axis(out, idx[k % 2], upd, axis=0)
                else:
                    np.add.at(out, idx[k % 2], upd)
            return measure(2 * targets * 4 + n * (8 + 4), 1, f)
        R.run("scatter", f"{n >> 20}M {name}", False, scatter)

    g = z["grid"]
    for red in ("none", "add"):
        def scatter_grid(red=red):
            # each column's indices a permutation of the rows
            idx = [np.argsort(rng.random(g), axis=0).astype(np.int64) for _ in range(2)]
            cols = np.arange(g[1], dtype=np.int64)[None, :]
            upd = np.ones(g, f32)
            x = ins(f32, g)

            def f(k):
                out = x[k % len(x)].copy()
                if red == "none":
                    np.put_along_axis(out, idx[k % 2], upd, axis=0)
                else:
                    np.add.at(out, (idx[k % 2], cols), upd)
            return measure(2 * g[0] * g[1] * 4 + g[0] * g[1] * (8 + 4), 1, f)
        R.run("scatter", f"column permutations {shape_name(g)} axis 0, {red}", False, scatter_grid)

    def scatter_nd_rows():
        rows, dim = z["table"]
        lk = z["lookups"]
        idx = [rng.permutation(rows)[:lk].astype(np.int64).reshape(lk, 1) for _ in range(2)]
        upd = np.ones((lk, dim), f32)
        x = ins(f32, z["table"])

        def f(k):
            out = x[k % len(x)].copy()
            out[idx[k % 2][:, 0]] = upd
        return measure(2 * rows * dim * 4 + lk * (dim * 4 + 8), 1, f)
    R.run("scatter_nd", f"{z['lookups']} rows into {shape_name(z['table'])}, none", False, scatter_nd_rows)

    def scatter_nd_pairs():
        idx = [np.stack([rng.integers(0, pt[0], pairs), rng.integers(0, pt[1], pairs)], axis=1) for _ in range(2)]
        upd = np.ones(pairs, f32)
        x = ins(f32, pt)

        def f(k):
            out = x[k % len(x)].copy()
            np.add.at(out, (idx[k % 2][:, 0], idx[k % 2][:, 1]), upd)
        return measure(2 * pt[0] * pt[1] * 4 + pairs * (2 * 8 + 4), 1, f)
    R.run("scatter_nd", f"{pairs >> 10}K pairs into {shape_name(pt)}, add", False, scatter_nd_pairs)

    for b in sweep_sizes(z["sweep_max"]):
        def copy(b=b):
            s = (b // 4096, 1024)
            x, out = ins(f32, s), np.empty(s, f32)
            inner = sweep_inner(2 * b)
            return measure(2 * b, inner, lambda k: np.concatenate([x[k % len(x)]], axis=0, out=out))
        R.run("sweep: copy (join of one)", size_name(b), True, copy)
    for b in sweep_sizes(z["sweep_max"]):
        def padc(b=b):
            s = (b // 4096, 1024)
            x = ins(f32, s)
            inner = sweep_inner(2 * b)
            return measure(b + s[0] * (s[1] + 2) * 4, inner, lambda k: np.pad(x[k % len(x)], ((0, 0), (1, 1))))
        R.run("sweep: pad constant 1", size_name(b), True, padc)

    def small():
        x = np.ones((64, 64), f32)
        return measure((64 * 64 + 70 * 70) * 4, 100, lambda k: np.pad(x, 3, mode="reflect"))
    R.run("small ops", "100 pads 64x64 reflect 3", False, small)

    def small_gather():
        tab, idx = np.ones((1024, 64), f32), np.random.default_rng(7).integers(0, 1024, 16)
        outs = [np.empty((16, 64), f32) for _ in range(100)]
        return measure(2 * 16 * 64 * 4 + 16 * 8, 100, lambda k: np.take(tab, idx, axis=0, out=outs[k % 100]))
    R.run("small ops", "100 gathers 16 rows of 1024x64", False, small_gather)

    def small_join():
        a, b = np.ones((64, 64), f32), np.ones((1, 64), f32)
        outs = [np.empty((65, 64), f32) for _ in range(100)]
        return measure(2 * 65 * 64 * 4, 100, lambda k: np.concatenate([a, b], axis=0, out=outs[k % 100]))
    R.run("small ops", "100 joins 64x64 + 1x64", False, small_join)

    def small_scatter():
        acc, upd = np.zeros((1024, 64), f32), np.ones((16, 64), f32)
        idx, cols = np.random.default_rng(9).integers(0, 1024, (16, 64)), np.broadcast_to(np.arange(64), (16, 64))
        return measure(16 * 64 * (4 + 4 + 8 + 4), 100, lambda k: np.add.at(acc, (idx, cols), upd))
    R.run("small ops", "100 scatter adds 16x64 into 1024x64", False, small_scatter)

    if a.json:
        doc = {"device": device, "backend": "numpy", "threads": 1, "quick": a.quick, "copy_kind": "np.copyto", "results": R.results}
        write_json(a.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
