#!/usr/bin/env python3
"""The PyTorch (CUDA) peer of strix-bench's Vulkan cases: the same cases on the same sizes
(strix-bench's pick_sizes(vulkan=true, quick)), the same case and op names, the same bytes
formulas and the same JSON, beside a copy of the same bytes measured in the same run: `dst.copy_(src)`
of a float32 tensor holding bytes/2 (read + write = bytes). Ratio = copy time / operator time
(above 1: faster than a copy).

    torch_peer.py [--quick] [--json FILE] [--filter TEXT] [--timer auto|triton|events] [--no-graph]

PyTorch calls, one per strix-bench case:
  gather, embedding rows      torch.index_select(table, 0, idx, out=)   (F.embedding as an extra row)
  gather, last axis permuted  torch.index_select(x, 1, perm, out=)
  gather_elements             torch.gather(x, 1, idx, out=)
  join (4 inputs, KV append)  torch.cat(..., dim, out=)
  split                       torch.split_with_sizes_copy(x, sizes, dim, out=[4 outputs]) where it
                              exists, else out_i.copy_(piece) for each view of torch.split: like
                              strix, the pieces are written into preallocated outputs (torch.split
                              alone returns views and moves nothing)
  pad                         F.pad(x, (3, 3, 3, 3), mode) with constant / replicate (strix: edge) /
                              reflect / circular (strix: wrap); torch has no symmetric mode: that
                              row is written with "unsupported": true and no times. F.pad has no
                              out= argument, so it allocates its output (from the caching allocator)
  scatter                     out.copy_(x).scatter_(0, idx, upd) (no reduction) and
                              out.copy_(x).scatter_add_(0, idx, upd) (add): strix's scatter is out of
                              place, so the copy of the input into the output belongs to it
  sweep: copy (join of one)   torch.cat([x], 0, out=)
  sweep: pad constant 1       F.pad(x, (1, 1))
  small ops                   100 F.pad(x, (3, 3, 3, 3), "reflect") of a [1, 64, 64] tensor (F.pad's
                              reflect mode needs a leading channel axis; the same bytes as strix's
                              [64, 64]) issued back to back, time per operator: eagerly (Python and
                              launch overhead included), and again replayed from one CUDA graph
                              (closer to strix, which records the stream first and times the device)

Indices are int64 with strix-bench's distributions (uniform random rows / targets, random
permutations), drawn on the GPU by torch's generator (not the same values as strix-bench's).

Times: triton.testing.do_bench, the median (it runs warm-up calls for 25 ms, then times calls
for about 100 ms with CUDA events, clearing the L2 cache before every call); without triton (or
with --timer events), CUDA events around each call after writing a 256 MiB buffer to clear the
L2, the median of max(reps, 20) calls after warm-up. As in strix-bench, inputs rotate between two
copies (one beyond 512 MiB); since the L2 is cleared before every timed call anyway, small sizes
are timed with a cold L2 here, where strix-bench's two rotating copies may still be in the L2.
"""
import argparse
import statistics
import sys

import torch
import torch.nn.functional as F

from peer_common import GiB, KiB, MiB, copies_for, print_header, record, shape_name, size_name, write_json

COPY_KIND = "torch copy_ (device to device)"
DEV = "cuda"


def numel(s):
    n = 1
    for d in s:
        n *= d
    return n


def sizes(quick):
    """strix-bench's pick_sizes(vulkan=true, quick)."""
    if quick:
        return dict(table=(8192, 512), lookups=8192, matrix=(4096, 1024), kv=(2, 16, 1139, 128), image=(1, 64, 256, 256),
                    updates=1 << 20, sweep_max=64 * MiB)
    return dict(table=(131072, 4096), lookups=8192, matrix=(262144, 1024), kv=(16, 16, 1139, 128), image=(16, 64, 256, 256),
                updates=1 << 20, sweep_max=GiB)


# ---------------------------------------------------------------------------------------------
# Timers: each returns the median seconds of one call of fn().

class Timer:
    def __init__(self, kind, reps):
        self.reps = reps
        self.do_bench = None
        if kind in ("auto", "triton"):
            try:
                from triton.testing import do_bench
                self.do_bench = do_bench
            except ImportError:
                if kind == "triton":
                    raise
        self.flush = None if self.do_bench else torch.empty(256 * MiB // 4, dtype=torch.int32, device=DEV)
        self.name = self._describe()

    def _describe(self):
        if self.do_bench:
            return "triton.testing.do_bench, median (L2 cleared before every call)"
        return f"CUDA events, median of {max(self.reps, 20)} calls (L2 cleared before every call)"

    def __call__(self, fn):
        if self.do_bench:
            return self._triton(fn)
        return self._events(fn)

    def _triton(self, fn):
        # The keyword for a median changed over triton's versions: return_mode (2.1 on),
        # quantiles (2.1 on, a list back), percentiles (2.0, a tuple back). Milliseconds.
        for kw in ({"return_mode": "median"}, {"quantiles": [0.5]}, {"percentiles": (0.5,)}):
            try:
                ms = self.do_bench(fn, **kw)
            except TypeError as e:
                if "unexpected keyword" in str(e) or "got an unexpected" in str(e):
                    continue
                raise
            if isinstance(ms, (list, tuple)):
                ms = ms[0]
            return float(ms) / 1e3
        return float(self.do_bench(fn)) / 1e3  # a mean, where no median could be asked for

    def _events(self, fn):
        fn()
        torch.cuda.synchronize()
        for _ in range(3):
            fn()
        n = max(self.reps, 20)
        start = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        end = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        for i in range(n):
            self.flush.zero_()
            start[i].record()
            fn()
            end[i].record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in zip(start, end)) / 1e3


def rotating(fn, n):
    """A no-argument callable that calls fn(k) with k = 0, 1, 2, ... (k % n picks the input copy)."""
    state = {"k": 0}

    def call():
        k = state["k"]
        state["k"] = k + 1
        return fn(k % n)
    return call


def graphed(fn):
    """fn captured once into a CUDA graph (after a warm-up on a side stream); returns its replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        keep = fn()  # the outputs stay alive with the graph: each replay writes the same buffers
    graphed.kept.append((g, keep))
    return g.replay


graphed.kept = []


# ---------------------------------------------------------------------------------------------

class Runner:
    def __init__(self, timer, filt):
        self.timer, self.filter, self.results, self.copy_cache = timer, filt, [], {}
        print_header()

    def copy(self, nbytes, inner, graph):
        """dst.copy_(src) of float32 bytes/2, `inner` copies per timed call into distinct outputs."""
        n = max(nbytes // 2 // 4, 1)
        src = [torch.zeros(n, dtype=torch.float32, device=DEV) for _ in range(copies_for(n * 4))]
        dst = [torch.empty(n, dtype=torch.float32, device=DEV) for _ in range(min(inner, 100))]
        if inner == 1:
            return self.timer(rotating(lambda k: dst[0].copy_(src[k]), len(src)))

        def batch():
            for j in range(inner):
                dst[j % len(dst)].copy_(src[j % len(src)])
        return self.timer(graphed(batch) if graph else batch) / inner

    def run(self, op, name, sweep, body, peer):
        if self.filter and self.filter not in f"{op} {name}":
            return
        try:
            m = body()  # (bytes, seconds of one operator, operators per timed call, graph?)
        except Exception as e:  # noqa: BLE001 - report and go on, as strix-bench does
            print(f"{op:26s} {name:38s} skipped: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
            torch.cuda.empty_cache()
            return
        nbytes, secs, inner, graph = m
        torch.cuda.empty_cache()  # the case's tensors are gone before the copy runs
        secs = max(secs, 1e-12)
        key = (int(nbytes), inner, graph)
        if key not in self.copy_cache:
            self.copy_cache[key] = max(self.copy(int(nbytes), inner, graph), 1e-12)
            torch.cuda.empty_cache()
        record(self.results, op, name, nbytes, secs, self.copy_cache[key], sweep, COPY_KIND + (", CUDA graph" if graph else ""), peer=peer)

    def unsupported(self, op, name, nbytes, why):
        if self.filter and self.filter not in f"{op} {name}":
            return
        print(f"{op:26s} {name:38s} unsupported: {why}", flush=True)
        self.results.append({"op": op, "case": name, "bytes": int(nbytes), "median_s": None, "gbps": None, "copy_s": None,
                             "copy_gbps": None, "ratio": None, "sweep": False, "copy_kind": COPY_KIND, "unsupported": True,
                             "note": why})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="strix-bench's --quick sizes (smaller tensors, sweep up to 64 MiB)")
    ap.add_argument("--json", metavar="FILE", help="write the results as strix-bench's JSON")
    ap.add_argument("--filter", default="", metavar="TEXT", help="run only the cases whose 'op case' contains TEXT")
    ap.add_argument("--timer", choices=("auto", "triton", "events"), default="auto",
                    help="triton.testing.do_bench, CUDA events, or triton where it imports (default)")
    ap.add_argument("--no-graph", action="store_true", help="skip the CUDA-graph row of the 100 small operators")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_peer.py: no CUDA device", file=sys.stderr)
        return 2
    z = sizes(a.quick)
    reps = 5 if a.quick else 9
    timer = Timer(a.timer, reps)
    f32, f16, i64 = torch.float32, torch.float16, torch.int64
    device = f"{torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}"
    print(f"backend: torch, device: {device}{', quick' if a.quick else ''}")
    print(f"timer: {timer.name}")
    R = Runner(timer, a.filter)

    def gen(seed):
        return torch.Generator(device=DEV).manual_seed(seed)

    def ins(dtype, shape, extra=0):
        n = copies_for(numel(shape) * torch.empty((), dtype=dtype).element_size() + extra)
        return [torch.zeros(shape, dtype=dtype, device=DEV) for _ in range(n)]

    def rand_idx(shape, high, seed):
        return torch.randint(0, high, shape, dtype=i64, device=DEV, generator=gen(seed))

    def perm(n, seed):
        return torch.randperm(n, dtype=i64, device=DEV, generator=gen(seed))

    # Embedding rows: 8192 random rows of a [rows, dim] table.
    rows, dim = z["table"]
    emb_bytes = 2 * z["lookups"] * dim * 4 + z["lookups"] * 8

    def embedding(functional=False):
        tab = ins(f32, z["table"])
        idx = [rand_idx((z["lookups"],), rows, 11 + i) for i in range(len(tab))]
        out = torch.empty((z["lookups"], dim), dtype=f32, device=DEV)
        if functional:
            f = rotating(lambda k: F.embedding(idx[k], tab[k]), len(tab))
        else:
            f = rotating(lambda k: torch.index_select(tab[k], 0, idx[k], out=out), len(tab))
        return emb_bytes, timer(f), 1, False
    R.run("gather", "embedding rows " + shape_name(z["table"]), False, embedding, "torch.index_select(dim=0, out=)")
    R.run("gather", "embedding rows " + shape_name(z["table"]) + " (F.embedding)", False, lambda: embedding(True), "F.embedding")

    m = z["matrix"]
    mbytes = numel(m) * 4

    # Gather along the last axis: a permutation of the columns.
    def gather_last():
        x = ins(f32, m)
        p = perm(m[1], 5)
        out = torch.empty(m, dtype=f32, device=DEV)
        return 2 * mbytes + m[1] * 8, timer(rotating(lambda k: torch.index_select(x[k], 1, p, out=out), len(x))), 1, False
    R.run("gather", "last axis, permuted " + shape_name(m), False, gather_last, "torch.index_select(dim=-1, out=)")

    # Gather-elements along the last axis, random int64 indices of the input's shape.
    def gather_elements():
        ib = numel(m) * 8
        x = ins(f32, m, ib)
        idx = [rand_idx(m, m[1], 21 + i) for i in range(len(x))]
        out = torch.empty(m, dtype=f32, device=DEV)
        return 2 * mbytes + ib, timer(rotating(lambda k: torch.gather(x[k], 1, idx[k], out=out), len(x))), 1, False
    R.run("gather_elements", "last axis " + shape_name(m), False, gather_elements, "torch.gather(dim=-1, out=)")

    # Join of 4 inputs, outer and innermost axis.
    for axis in (0, 1):
        part = list(m)
        part[axis] //= 4

        def join(axis=axis, part=tuple(part)):
            xs = [ins(f32, part, 3 * numel(part) * 4) for _ in range(4)]
            out = torch.empty(m, dtype=f32, device=DEV)
            return 2 * mbytes, timer(rotating(lambda k: torch.cat([p[k] for p in xs], dim=axis, out=out), len(xs[0]))), 1, False
        R.run("join", ("4 inputs, innermost axis " if axis else "4 inputs, outer axis ") + shape_name(m), False, join, "torch.cat(out=)")

    # KV-cache append: [b,h,t,d] + [b,h,1,d] float16 along axis 2.
    def kv():
        s = z["kv"]
        one, whole = (s[0], s[1], 1, s[3]), (s[0], s[1], s[2] + 1, s[3])
        cache, step = ins(f16, s), ins(f16, one)
        out = torch.empty(whole, dtype=f16, device=DEV)
        nbytes = 2 * (numel(s) + numel(one) + numel(whole))
        return nbytes, timer(rotating(lambda k: torch.cat([cache[k], step[k]], dim=2, out=out), len(cache))), 1, False
    R.run("join", "KV append f16 " + shape_name(z["kv"]) + "+1", False, kv, "torch.cat(dim=2, out=) float16")

    # Split into 4, outer and innermost axis, into 4 preallocated outputs.
    have_split_copy = hasattr(torch, "split_with_sizes_copy")
    split_peer = "torch.split_with_sizes_copy(out=)" if have_split_copy else "torch.split + out_i.copy_(piece)"
    for axis in (0, 1):
        def split(axis=axis):
            part = list(m)
            part[axis] //= 4
            x = ins(f32, m)
            outs = [torch.empty(part, dtype=f32, device=DEV) for _ in range(4)]
            widths = [part[axis]] * 4
            if have_split_copy:
                f = rotating(lambda k: torch.split_with_sizes_copy(x[k], widths, dim=axis, out=outs), len(x))
            else:
                def f_k(k):
                    for o, p in zip(outs, torch.split(x[k], widths, dim=axis)):
                        o.copy_(p)
                f = rotating(f_k, len(x))
            return 2 * mbytes, timer(f), 1, False
        R.run("split", ("4 outputs, innermost axis " if axis else "4 outputs, outer axis ") + shape_name(m), False, split, split_peer)

    # Pad by 3 on both sides of the two last axes, every mode.
    img = z["image"]
    opad = (img[0], img[1], img[2] + 6, img[3] + 6)
    pad_bytes = 4 * (numel(img) + numel(opad))
    for mode, tmode in (("constant", "constant"), ("edge", "replicate"), ("reflect", "reflect"), ("symmetric", None), ("wrap", "circular")):
        name = f"{mode} 3 " + shape_name(img)
        if tmode is None:
            R.unsupported("pad", name, pad_bytes, "torch.nn.functional.pad has no symmetric mode")
            continue

        def pad(tmode=tmode):
            x = ins(f32, img)
            return pad_bytes, timer(rotating(lambda k: F.pad(x[k], (3, 3, 3, 3), mode=tmode), len(x))), 1, False
        R.run("pad", name, False, pad, f'F.pad(mode="{tmode}")')

    # Scatter of 1M float32 updates: unique targets (a permutation), and onto 64K targets with add.
    n = z["updates"]
    for name, targets, red in (("unique, none", n, "none"), ("unique, add", n, "add"), ("onto 64K, add", 65536, "add")):
        def scatter(targets=targets, red=red):
            idx = [perm(n, 31 + i) if targets == n else rand_idx((n,), targets, 41 + i) for i in range(2)]
            upd = torch.ones(n, dtype=f32, device=DEV)  # as strix and NumPy
            x = ins(f32, (targets,))
            out = torch.empty(targets, dtype=f32, device=DEV)
            if red == "none":
                f = rotating(lambda k: out.copy_(x[k]).scatter_(0, idx[k], upd), 2)
            else:
                f = rotating(lambda k: out.copy_(x[k]).scatter_add_(0, idx[k], upd), 2)
            return 2 * targets * 4 + n * (8 + 4), timer(f), 1, False
        R.run("scatter", f"{n >> 20}M {name}", False, scatter,
              "out.copy_(x).scatter_()" if red == "none" else "out.copy_(x).scatter_add_()")

    # Size sweeps: a join of one (a copy) and a constant pad of 1 on the last axis of [n/4096, 1024].
    def sweep_sizes():
        b = 4 * KiB
        while b <= z["sweep_max"]:
            yield b
            b *= 4

    for b in sweep_sizes():
        def copy(b=b):
            s = (b // 4096, 1024)
            x, out = ins(f32, s), torch.empty(s, dtype=f32, device=DEV)
            return 2 * b, timer(rotating(lambda k: torch.cat([x[k]], dim=0, out=out), len(x))), 1, False
        R.run("sweep: copy (join of one)", size_name(b), True, copy, "torch.cat([x], out=)")
    for b in sweep_sizes():
        def padc(b=b):
            s = (b // 4096, 1024)
            x = ins(f32, s)
            return b + s[0] * (s[1] + 2) * 4, timer(rotating(lambda k: F.pad(x[k], (1, 1)), len(x))), 1, False
        R.run("sweep: pad constant 1", size_name(b), True, padc, 'F.pad(mode="constant")')

    # 100 small operators back to back: reflect pads of 64x64 by 3; the time reported is per
    # operator. The outputs of one batch are kept until its end, so they are 100 distinct tensors.
    small_bytes = (64 * 64 + 70 * 70) * 4

    def small(graph):
        x = torch.zeros((1, 64, 64), dtype=f32, device=DEV)

        def batch():
            return [F.pad(x, (3, 3, 3, 3), mode="reflect") for _ in range(100)]
        return small_bytes, timer(graphed(batch) if graph else batch) / 100, 100, graph
    R.run("small ops", "100 pads 64x64 reflect 3", False, lambda: small(False), 'F.pad(mode="reflect") x100, eager')
    if not a.no_graph:
        R.run("small ops", "100 pads 64x64 reflect 3 (CUDA graph)", False, lambda: small(True),
              'F.pad(mode="reflect") x100, one CUDA graph replay')

    if a.json:
        doc = {"device": device, "backend": "torch", "threads": 0, "quick": a.quick, "copy_kind": COPY_KIND, "timer": timer.name,
               "results": R.results}
        write_json(a.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
