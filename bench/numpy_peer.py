#!/usr/bin/python3
"""The NumPy peer of strix-bench's CPU cases: the same cases on the same sizes, the same bytes
formulas and the same JSON, beside a copy of the same bytes (np.copyto of bytes/2) measured in the
same run, in turns with the operator. Ratio = copy time / operator time (above 1: faster than a copy).

    numpy_peer.py [--quick] [--json FILE] [--filter TEXT]

NumPy calls: np.take (gather), np.take_along_axis (gather_elements), np.concatenate with out=
(join), [a.copy() for a in np.split(...)] (split: np.split makes views), np.pad (every mode),
out = x.copy() then np.put_along_axis (scatter, no reduction) or np.add.at (scatter add).
NumPy runs on one thread. Times: time.perf_counter, the median of 9 repetitions after a warm-up,
the copy timed in turns with the operator; inputs rotate between two copies (one beyond 512 MiB).
"""
import argparse
import platform
import statistics
import sys
import time

import numpy as np

from peer_common import GiB, KiB, MiB, copies_for, print_header, record, shape_name, size_name, write_json


def sweep_inner(nbytes):
    return int(min(max(8 * MiB // max(nbytes, 1), 1), 1000))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


class Copier:
    """np.copyto of bytes/2 from rotating sources: the copy baseline of one case."""

    def __init__(self, nbytes):
        half = max(int(nbytes) // 2, 1)
        self.src = [np.ones(half, np.uint8) for _ in range(copies_for(half))]
        self.dst = np.zeros(half, np.uint8)

    def __call__(self, k):
        np.copyto(self.dst, self.src[k % len(self.src)])


REPS = 9


def measure(nbytes, inner, f):
    """(nbytes, median seconds of one call of f(k), inner, median seconds of the copy baseline):
    the operator and a copy of the same bytes timed in turns, repetition by repetition, after a
    warm-up of each, as strix-bench does on the CPU (both see the same load on a shared machine)."""
    c = Copier(nbytes)
    op_t, copy_t, k, kc = [], [], 0, 0
    for i in range(REPS + 1):
        for which in ((0, 1) if i % 2 else (1, 0)):
            t0 = time.perf_counter()
            for _ in range(inner):
                if which == 0:
                    f(k)
                    k += 1
                else:
                    c(kc)
                    kc += 1
            s = (time.perf_counter() - t0) / inner
            if i:
                (op_t if which == 0 else copy_t).append(s)
    return nbytes, statistics.median(op_t), inner, statistics.median(copy_t)


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


def sizes(quick):
    """strix-bench's pick_sizes(vulkan=false, quick): --quick only shortens the sweep."""
    return dict(table=(16384, 1024), lookups=8192, matrix=(16384, 1024), kv=(16, 16, 1139, 128), image=(4, 64, 256, 256),
                updates=1 << 20, sweep_max=64 * MiB if quick else GiB)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    z = sizes(a.quick)
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

    def sweep_sizes():
        b = 4 * KiB
        while b <= z["sweep_max"]:
            yield b
            b *= 4

    for b in sweep_sizes():
        def copy(b=b):
            s = (b // 4096, 1024)
            x, out = ins(f32, s), np.empty(s, f32)
            inner = sweep_inner(2 * b)
            return measure(2 * b, inner, lambda k: np.concatenate([x[k % len(x)]], axis=0, out=out))
        R.run("sweep: copy (join of one)", size_name(b), True, copy)
    for b in sweep_sizes():
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

    if a.json:
        doc = {"device": device, "backend": "numpy", "threads": 1, "quick": a.quick, "copy_kind": "np.copyto", "results": R.results}
        write_json(a.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
