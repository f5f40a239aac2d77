#!/usr/bin/env python3
"""The PyTorch peer of strix-bench: on CUDA (the default) of its Vulkan cases, on the CPU
(--device cpu) of its CPU cases, the same cases on the same sizes (strix-bench's
pick_sizes(vulkan=true / false, quick)), the same case and op names, the same bytes formulas and
the same JSON, beside a copy of the same bytes measured in the same run: `dst.copy_(src)` of
bytes/2 (read + write = bytes). Ratio = copy time / operator time (above 1: faster than a copy).

    torch_peer.py [--device cuda|cpu] [--threads N] [--quick] [--json FILE] [--filter TEXT]
                  [--timer auto|triton|events] [--no-graph]

PyTorch calls, one per strix-bench case:
  gather, embedding rows      torch.index_select(table, 0, idx, out=)   (F.embedding as an extra row)
  gather, last axis permuted  torch.index_select(x, 1, perm, out=)
  gather, axis 2 random       torch.index_select(x, 2, idx, out=)
  gather_elements             torch.gather(x, axis, idx, out=), int64 and int32 indices (where
                              torch takes int32 indices: 1.13 does not, and its rows say so)
  gather_nd                   table[idx[:, 0], idx[:, 1]] / table[idx[:, 0]]: advanced indexing
                              with the tuples' columns (allocating; torch has no gather_nd)
  join (4 inputs, KV append)  torch.cat(..., dim, out=)
  split                       torch.split_with_sizes_copy(x, sizes, dim, out=[4 outputs]) where it
                              exists, else out_i.copy_(piece) for each view of torch.split: like
                              strix, the pieces are written into preallocated outputs (torch.split
                              alone returns views and moves nothing)
  pad                         F.pad(x, (3, 3, 3, 3), mode) with constant / replicate (strix: edge) /
                              reflect / circular (strix: wrap); torch has no symmetric mode: that
                              row is written with "unsupported": true and no times. F.pad has no
                              out= argument, so it allocates its output (on CUDA from the caching
                              allocator)
  scatter                     out.copy_(x).scatter_(0, idx, upd) (no reduction) and, for add,
                              out.copy_(x).scatter_add_(0, idx, upd) on CUDA,
                              out.copy_(x).scatter_reduce_(0, idx, upd, "sum") on the CPU: strix's
                              scatter is out of place, so the copy of the input into the output
                              belongs to it; the deterministic add (CUDA) runs scatter_add_ under
                              torch.use_deterministic_algorithms(True); the column-permutation
                              cases add the bare kernels (scatter_ / scatter_add_ in place, no
                              copy) as extra rows
  scatter_nd                  out.copy_(x).index_put_((idx[:, 0],), rows) (no reduction) and
                              out.copy_(x).index_put_((idx[:, 0], idx[:, 1]), upd, accumulate=True)
  sweep: copy (join of one)   torch.cat([x], 0, out=)
  sweep: pad constant 1       F.pad(x, (1, 1))
  small ops                   100 F.pad(x, (3, 3, 3, 3), "reflect") of a [1, 64, 64] tensor (F.pad's
                              reflect mode needs a leading channel axis; the same bytes as strix's
                              [64, 64]) issued back to back, time per operator: eagerly (Python and
                              launch overhead included), and on CUDA again replayed from one CUDA
                              graph (closer to strix, which records the stream first and times the
                              device)
On the CPU, each case that writes into a preallocated output (out=, copy_) also gets a row with
PyTorch's allocating call ("(allocating)": torch.index_select / torch.gather / torch.cat without
out=, [p.clone() for p in torch.split(...)], torch.scatter / scatter_reduce / index_put), which
pays the page faults of a fresh output.

Indices have strix-bench's distributions (uniform random rows / targets, random permutations),
drawn by torch's generator (not the same values as strix-bench's).

Times, CUDA: triton.testing.do_bench, the median (it runs warm-up calls for 25 ms, then times
calls for about 100 ms with CUDA events, clearing the L2 cache before every call); without triton
(or with --timer events), CUDA events around each call after writing a 256 MiB buffer to clear the
L2, the median of max(reps, 20) calls after warm-up. As in strix-bench, inputs rotate between two
copies (one beyond 512 MiB); since the L2 is cleared before every timed call anyway, small sizes
are timed with a cold L2 here, where strix-bench's two rotating copies may still be in the L2.
Times, CPU: time.perf_counter, the median of 9 repetitions after a warm-up, the copy timed in
turns with the operator (as strix-bench and numpy_peer.py do), on --threads threads
(torch.set_num_threads; default: strix-bench's default, every core); inputs are written (ones),
so that no page is the shared zero page.
"""
import argparse
import os
import statistics
import sys
import warnings

import torch
import torch.nn.functional as F

from peer_common import MiB, copies_for, cpu_name, cpu_sizes, gpu_sizes, measure_in_turns, print_header, record, shape_name, \
    size_name, sweep_inner, sweep_sizes, write_json

DEV = "cuda"  # or "cpu" (--device)
warnings.filterwarnings("ignore", message=r"scatter_reduce\(\) is in beta")  # torch 1.13's, once per run


def copy_kind():
    return "torch copy_ (device to device)" if DEV == "cuda" else "torch copy_"


def numel(s):
    n = 1
    for d in s:
        n *= d
    return n


# ---------------------------------------------------------------------------------------------
# Timers (CUDA): each returns the median seconds of one call of fn().

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


class CpuCopier:
    """dst.copy_(src) of bytes/2 from rotating sources (torch's own threads): the CPU copy baseline."""

    def __init__(self, nbytes):
        half = max(int(nbytes) // 2, 1)
        self.src = [torch.ones(half, dtype=torch.uint8) for _ in range(copies_for(half))]
        self.dst = torch.zeros(half, dtype=torch.uint8)

    def __call__(self, k):
        self.dst.copy_(self.src[k % len(self.src)])


# ---------------------------------------------------------------------------------------------

class Case:
    """What a case body hands the runner: the bytes one call moves, the call (no arguments; it
    rotates its inputs itself), how many operators one call runs, whether it is a CUDA graph
    replay, and on the CPU the allocating variant of the call with its peer name."""

    def __init__(self, nbytes, fn, inner=1, graph=False, alloc=None, alloc_peer=None):
        self.nbytes, self.fn, self.inner, self.graph, self.alloc, self.alloc_peer = nbytes, fn, inner, graph, alloc, alloc_peer


class Runner:
    def __init__(self, timer, filt):
        self.timer, self.filter, self.results, self.copy_cache = timer, filt, [], {}
        print_header()

    def copy(self, nbytes, inner, graph):
        """CUDA: dst.copy_(src) of float32 bytes/2, `inner` copies per timed call into distinct outputs."""
        n = max(nbytes // 2 // 4, 1)
        src = [torch.zeros(n, dtype=torch.float32, device=DEV) for _ in range(copies_for(n * 4))]
        dst = [torch.empty(n, dtype=torch.float32, device=DEV) for _ in range(min(inner, 100))]
        if inner == 1:
            return self.timer(rotating(lambda k: dst[0].copy_(src[k]), len(src)))

        def batch():
            for j in range(inner):
                dst[j % len(dst)].copy_(src[j % len(src)])
        return self.timer(graphed(batch) if graph else batch) / inner

    def cpu_time(self, nbytes, fn, inner):
        """CPU: (median seconds of one operator, of a copy of its bytes), timed in turns; a call
        of fn runs `inner` operators, and the copy as many copies."""
        one = CpuCopier(nbytes)
        secs, copy_s = measure_in_turns(nbytes, 1, lambda k: fn(), lambda k: [one(k * inner + j) for j in range(inner)])
        return secs / inner, copy_s / inner

    def cuda_copy(self, nbytes, inner, graph):
        key = (int(nbytes), inner, graph)
        if key not in self.copy_cache:
            self.copy_cache[key] = max(self.copy(int(nbytes), inner, graph), 1e-12)
            torch.cuda.empty_cache()
        return self.copy_cache[key]

    def run(self, op, name, sweep, body, peer):
        if self.filter and self.filter not in f"{op} {name}":
            return
        kind = copy_kind()
        try:
            c = body()
            nbytes, inner, graph = c.nbytes, c.inner, c.graph
            if DEV == "cpu":
                secs, copy_s = self.cpu_time(nbytes, c.fn, inner)
                alloc = None
                if c.alloc is not None:
                    alloc = self.cpu_time(nbytes, c.alloc, 1)
            else:
                secs = self.timer(c.fn) / inner
                c = None
                torch.cuda.empty_cache()  # the case's tensors are gone before the copy runs
                copy_s = self.cuda_copy(nbytes, inner, graph)
            record(self.results, op, name, nbytes, max(secs, 1e-12), max(copy_s, 1e-12), sweep, kind + (", CUDA graph" if graph else ""),
                   peer=peer)
            if DEV == "cpu" and alloc is not None:
                record(self.results, op, name + " (allocating)", nbytes, max(alloc[0], 1e-12), max(alloc[1], 1e-12), sweep, kind,
                       peer=c.alloc_peer)
        except Exception as e:  # noqa: BLE001 - report and go on, as strix-bench does
            print(f"{op:26s} {name:38s} skipped: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
        if DEV == "cuda":
            torch.cuda.empty_cache()

    def unsupported(self, op, name, nbytes, why):
        if self.filter and self.filter not in f"{op} {name}":
            return
        print(f"{op:26s} {name:38s} unsupported: {why}", flush=True)
        self.results.append({"op": op, "case": name, "bytes": int(nbytes), "median_s": None, "gbps": None, "copy_s": None,
                             "copy_gbps": None, "ratio": None, "sweep": False, "copy_kind": copy_kind(), "unsupported": True,
                             "note": why})


def takes_int32_indices():
    """Whether torch.gather takes int32 indices here (1.13 asks for int64)."""
    try:
        torch.gather(torch.zeros(2, device=DEV), 0, torch.zeros(2, dtype=torch.int32, device=DEV))
        return True
    except RuntimeError:
        return False


def main():
    global DEV
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cuda: strix-bench's Vulkan cases (default); cpu: its CPU cases, timed as strix-bench times the CPU")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, metavar="N",
                    help="CPU threads (torch.set_num_threads), as strix-bench --threads (default: every core)")
    ap.add_argument("--quick", action="store_true", help="strix-bench's --quick sizes")
    ap.add_argument("--json", metavar="FILE", help="write the results as strix-bench's JSON")
    ap.add_argument("--filter", default="", metavar="TEXT", help="run only the cases whose 'op case' contains TEXT")
    ap.add_argument("--timer", choices=("auto", "triton", "events"), default="auto",
                    help="CUDA: triton.testing.do_bench, CUDA events, or triton where it imports (default)")
    ap.add_argument("--no-graph", action="store_true", help="skip the CUDA-graph row of the 100 small operators")
    a = ap.parse_args()
    DEV = a.device
    cpu = DEV == "cpu"
    if cpu:
        torch.set_num_threads(max(1, a.threads))
        z = cpu_sizes(a.quick)
        timer = None
        threads = torch.get_num_threads()
        device = f"{cpu_name()}, torch {torch.__version__}, {threads} thread{'s' if threads > 1 else ''}"
    else:
        if not torch.cuda.is_available():
            print("torch_peer.py: no CUDA device", file=sys.stderr)
            return 2
        z = gpu_sizes(a.quick)
        timer = Timer(a.timer, 5 if a.quick else 9)
        threads = 0
        device = f"{torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}"
    f32, f16, i64 = torch.float32, torch.float16, torch.int64
    print(f"backend: torch, device: {device}{', quick' if a.quick else ''}")
    if timer:
        print(f"timer: {timer.name}")
    R = Runner(timer, a.filter)

    def gen(seed):
        return torch.Generator(device=DEV).manual_seed(seed)

    def ins(dtype, shape, extra=0):
        n = copies_for(numel(shape) * torch.empty((), dtype=dtype).element_size() + extra)
        # the CPU's are written: zeros could be pages that all map the one zero page, read from the cache
        return [(torch.ones if cpu else torch.zeros)(shape, dtype=dtype, device=DEV) for _ in range(n)]

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
            return Case(emb_bytes, rotating(lambda k: F.embedding(idx[k], tab[k]), len(tab)))
        return Case(emb_bytes, rotating(lambda k: torch.index_select(tab[k], 0, idx[k], out=out), len(tab)),
                    alloc=rotating(lambda k: torch.index_select(tab[k], 0, idx[k]), len(tab)), alloc_peer="torch.index_select(dim=0)")
    R.run("gather", "embedding rows " + shape_name(z["table"]), False, embedding, "torch.index_select(dim=0, out=)")
    if not cpu:
        R.run("gather", "embedding rows " + shape_name(z["table"]) + " (F.embedding)", False, lambda: embedding(True), "F.embedding")

    m = z["matrix"]
    mbytes = numel(m) * 4

    # Gather along the last axis: a permutation of the columns.
    def gather_last():
        x = ins(f32, m)
        p = perm(m[1], 5)
        out = torch.empty(m, dtype=f32, device=DEV)
        return Case(2 * mbytes + m[1] * 8, rotating(lambda k: torch.index_select(x[k], 1, p, out=out), len(x)),
                    alloc=rotating(lambda k: torch.index_select(x[k], 1, p), len(x)), alloc_peer="torch.index_select(dim=-1)")
    R.run("gather", "last axis, permuted " + shape_name(m), False, gather_last, "torch.index_select(dim=-1, out=)")

    # Gather on a middle axis, random int64 indices as many as the axis is long (repeats allowed).
    def gather_middle():
        e = z["elements"]
        x = ins(f32, e)
        idx = rand_idx((e[2],), e[2], 61)
        out = torch.empty(e, dtype=f32, device=DEV)
        return Case(2 * numel(e) * 4 + e[2] * 8, rotating(lambda k: torch.index_select(x[k], 2, idx, out=out), len(x)),
                    alloc=rotating(lambda k: torch.index_select(x[k], 2, idx), len(x)), alloc_peer="torch.index_select(dim=2)")
    R.run("gather", "axis 2 random " + shape_name(z["elements"]), False, gather_middle, "torch.index_select(dim=2, out=)")

    # Gather-elements along the last axis, random int64 indices of the input's shape.
    def gather_elements():
        ib = numel(m) * 8
        x = ins(f32, m, ib)
        idx = [rand_idx(m, m[1], 21 + i) for i in range(len(x))]
        out = torch.empty(m, dtype=f32, device=DEV)
        return Case(2 * mbytes + ib, rotating(lambda k: torch.gather(x[k], 1, idx[k], out=out), len(x)),
                    alloc=rotating(lambda k: torch.gather(x[k], 1, idx[k]), len(x)), alloc_peer="torch.gather(dim=-1)")
    R.run("gather_elements", "last axis " + shape_name(m), False, gather_elements, "torch.gather(dim=-1, out=)")

    # Gather-elements with random indices on the first, a middle and the last axis, both index types.
    e = z["elements"]
    int32_ok = takes_int32_indices()
    for axis in (0, 2, 3):
        for itype, iname in ((torch.int64, "int64"), (torch.int32, "int32")):
            name = f"axis {axis} random {shape_name(e)} {iname}"
            ib = numel(e) * (8 if itype == torch.int64 else 4)
            nbytes = 2 * numel(e) * 4 + ib
            if itype == torch.int32 and not int32_ok:
                R.unsupported("gather_elements", name, nbytes, f"torch {torch.__version__}'s gather takes int64 indices only")
                continue

            def gather_axis(axis=axis, itype=itype, ib=ib, nbytes=nbytes):
                x = ins(f32, e, ib)
                idx = [rand_idx(e, e[axis], 51 + i).to(itype) for i in range(len(x))]
                out = torch.empty(e, dtype=f32, device=DEV)
                return Case(nbytes, rotating(lambda k: torch.gather(x[k], axis, idx[k], out=out), len(x)),
                            alloc=rotating(lambda k: torch.gather(x[k], axis, idx[k]), len(x)), alloc_peer=f"torch.gather(dim={axis})")
            R.run("gather_elements", name, False, gather_axis, f"torch.gather(dim={axis}, out=)")

    # Gather-nd: random (row, column) pairs of a table, and random rows (tuples of one index).
    pt, pairs = z["pairs_table"], z["pairs"]

    def gather_nd_pairs():
        tab = ins(f32, pt)
        idx = [torch.stack([rand_idx((pairs,), pt[0], 61 + i), rand_idx((pairs,), pt[1], 161 + i)], dim=1) for i in range(len(tab))]
        return Case(pairs * (4 + 4 + 2 * 8), rotating(lambda k: tab[k][idx[k][:, 0], idx[k][:, 1]], len(tab)))
    R.run("gather_nd", f"{pairs >> 10}K pairs from {shape_name(pt)}", False, gather_nd_pairs, "table[idx[:, 0], idx[:, 1]]")

    def gather_nd_rows():
        tab = ins(f32, z["table"])
        idx = [rand_idx((z["lookups"], 1), rows, 71 + i) for i in range(len(tab))]
        return Case(emb_bytes, rotating(lambda k: tab[k][idx[k][:, 0]], len(tab)))
    R.run("gather_nd", f"{z['lookups']} rows of {shape_name(z['table'])}", False, gather_nd_rows, "table[idx[:, 0]]")

    # Join of 4 inputs, outer and innermost axis.
    for axis in (0, 1):
        part = list(m)
        part[axis] //= 4

        def join(axis=axis, part=tuple(part)):
            xs = [ins(f32, part, 3 * numel(part) * 4) for _ in range(4)]
            out = torch.empty(m, dtype=f32, device=DEV)
            return Case(2 * mbytes, rotating(lambda k: torch.cat([p[k] for p in xs], dim=axis, out=out), len(xs[0])),
                        alloc=rotating(lambda k: torch.cat([p[k] for p in xs], dim=axis), len(xs[0])), alloc_peer="torch.cat")
        R.run("join", ("4 inputs, innermost axis " if axis else "4 inputs, outer axis ") + shape_name(m), False, join, "torch.cat(out=)")

    # KV-cache append: [b,h,t,d] + [b,h,1,d] float16 along axis 2.
    def kv():
        s = z["kv"]
        one, whole = (s[0], s[1], 1, s[3]), (s[0], s[1], s[2] + 1, s[3])
        cache, step = ins(f16, s), ins(f16, one)
        out = torch.empty(whole, dtype=f16, device=DEV)
        nbytes = 2 * (numel(s) + numel(one) + numel(whole))
        return Case(nbytes, rotating(lambda k: torch.cat([cache[k], step[k]], dim=2, out=out), len(cache)),
                    alloc=rotating(lambda k: torch.cat([cache[k], step[k]], dim=2), len(cache)), alloc_peer="torch.cat(dim=2) float16")
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
            return Case(2 * mbytes, f, alloc=rotating(lambda k: [p.clone() for p in torch.split(x[k], widths, dim=axis)], len(x)),
                        alloc_peer="[p.clone() for p in torch.split()]")
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
            return Case(pad_bytes, rotating(lambda k: F.pad(x[k], (3, 3, 3, 3), mode=tmode), len(x)))
        R.run("pad", name, False, pad, f'F.pad(mode="{tmode}")')

    # Scatter of 1M float32 updates: unique targets (a permutation), and onto 64K targets with add.
    n = z["updates"]

    def scatter_calls(dim, idx, upd, x, out, red):
        """(the out-of-place call into `out`, its peer name, the allocating call, its peer name)."""
        if red == "none":
            return (lambda k: out.copy_(x[k]).scatter_(dim, idx[k], upd), "out.copy_(x).scatter_()",
                    lambda k: torch.scatter(x[k], dim, idx[k], upd), "torch.scatter()")
        if cpu:
            return (lambda k: out.copy_(x[k]).scatter_reduce_(dim, idx[k], upd, "sum"), 'out.copy_(x).scatter_reduce_("sum")',
                    lambda k: torch.scatter_reduce(x[k], dim, idx[k], upd, "sum"), 'torch.scatter_reduce("sum")')
        return (lambda k: out.copy_(x[k]).scatter_add_(dim, idx[k], upd), "out.copy_(x).scatter_add_()",
                lambda k: torch.scatter_add(x[k], dim, idx[k], upd), "torch.scatter_add()")

    for name, targets, red in (("unique, none", n, "none"), ("unique, add", n, "add"), ("onto 64K, add", 65536, "add")):
        def scatter(targets=targets, red=red):
            idx = [perm(n, 31 + i) if targets == n else rand_idx((n,), targets, 41 + i) for i in range(2)]
            upd = torch.ones(n, dtype=f32, device=DEV)  # as strix and NumPy
            x = ins(f32, (targets,))
            out = torch.empty(targets, dtype=f32, device=DEV)
            f, _, g, gp = scatter_calls(0, idx, upd, x, out, red)
            return Case(2 * targets * 4 + n * (8 + 4), rotating(f, 2), alloc=rotating(g, 2), alloc_peer=gp)
        R.run("scatter", f"{n >> 20}M {name}", False, scatter, scatter_calls(0, [], None, [], None, red)[1])

    # Scatter along axis 0 of a grid, each column's indices a permutation: out of place (no
    # reduction, add, and on CUDA the deterministic add), and the bare kernels in place.
    g = z["grid"]
    grid_bytes = 2 * numel(g) * 4 + numel(g) * (8 + 4)

    def column_perms(seed):
        return torch.argsort(torch.rand(g, device=DEV, generator=gen(seed)), dim=0)

    def grid_inputs():
        return [column_perms(81 + i) for i in range(2)], torch.ones(g, dtype=f32, device=DEV), ins(f32, g), torch.empty(g, dtype=f32, device=DEV)

    for red in ("none", "add"):
        def scatter_grid(red=red):
            idx, upd, x, out = grid_inputs()
            f, _, h, hp = scatter_calls(0, idx, upd, x, out, red)
            return Case(grid_bytes, rotating(f, 2), alloc=rotating(h, 2), alloc_peer=hp)
        R.run("scatter", f"column permutations {shape_name(g)} axis 0, {red}", False, scatter_grid,
              scatter_calls(0, [], None, [], None, red)[1])
        if red == "none":  # the peer of strix's call with unique_indices promised: the same call (it picks no winner)
            R.run("scatter", f"column permutations {shape_name(g)} axis 0, none, unique_indices", False, scatter_grid,
                  scatter_calls(0, [], None, [], None, red)[1])
    if not cpu:
        def scatter_grid_deterministic():
            idx, upd, x, out = grid_inputs()

            def f(k):
                torch.use_deterministic_algorithms(True)
                try:
                    out.copy_(x[k]).scatter_add_(0, idx[k], upd)
                finally:
                    torch.use_deterministic_algorithms(False)
            return Case(grid_bytes, rotating(f, 2))
        R.run("scatter", f"column permutations {shape_name(g)} axis 0, add, deterministic", False, scatter_grid_deterministic,
              "out.copy_(x).scatter_add_() under torch.use_deterministic_algorithms(True)")
    for red, call in (("none", "scatter_"), ("add", "scatter_add_")):
        def scatter_grid_bare(red=red):
            idx, upd, x, _ = grid_inputs()
            y = x[0]  # updated in place, again and again: the kernel alone, no copy
            if red == "none":
                return Case(numel(g) * (4 + 8 + 4), rotating(lambda k: y.scatter_(0, idx[k], upd), 2))
            return Case(numel(g) * (4 + 8 + 4), rotating(lambda k: y.scatter_add_(0, idx[k], upd), 2))
        R.run("scatter", f"column permutations {shape_name(g)} axis 0, {red} (bare {call})", False, scatter_grid_bare,
              f"x.{call}() in place, no copy")

    # Scatter-nd, out of place: rows at distinct random rows of a table, and elements added at
    # random (row, column) pairs.
    def scatter_nd_rows():
        lk = z["lookups"]
        idx = [perm(rows, 91 + i)[:lk].reshape(lk, 1) for i in range(2)]
        upd = torch.ones((lk, dim), dtype=f32, device=DEV)
        x = ins(f32, z["table"])
        out = torch.empty(z["table"], dtype=f32, device=DEV)
        # two index sets in turn; the 2 GiB table may have a single copy
        return Case(2 * rows * dim * 4 + lk * (dim * 4 + 8), rotating(lambda k: out.copy_(x[k % len(x)]).index_put_((idx[k][:, 0],), upd), 2),
                    alloc=rotating(lambda k: x[k % len(x)].index_put((idx[k][:, 0],), upd), 2), alloc_peer="x.index_put((idx[:, 0],), rows)")
    R.run("scatter_nd", f"{z['lookups']} rows into {shape_name(z['table'])}, none", False, scatter_nd_rows,
          "out.copy_(x).index_put_((idx[:, 0],), rows)")

    # Scatter-nd of whole rows in place: index_copy_ (PyTorch's fastest for it; index_put_ too)
    def scatter_nd_rows_in_place(call):
        rt, n = z["rows_table"], z["rows"]
        idx = [perm(rt[0], 93 + i)[:n] for i in range(2)]
        upd = torch.ones((n, rt[1]), dtype=f32, device=DEV)
        table = torch.zeros(rt, dtype=f32, device=DEV)
        if call == "index_copy_":
            return Case(n * (2 * rt[1] * 4 + 8), rotating(lambda k: table.index_copy_(0, idx[k], upd), 2))
        return Case(n * (2 * rt[1] * 4 + 8), rotating(lambda k: table.index_put_((idx[k],), upd), 2))
    for call in ("index_copy_", "index_put_"):  # (the first under strix-bench's name, the peer of its case)
        R.run("scatter_nd", f"{z['rows'] >> 10}K rows in place into {shape_name(z['rows_table'])}, none" + ("" if call == "index_copy_" else f" ({call})"),
              False, lambda call=call: scatter_nd_rows_in_place(call), f"table.{call}(...) in place")
    # the peer of strix's case with unique_indices promised: index_copy_ again (it picks no winner)
    R.run("scatter_nd", f"{z['rows'] >> 10}K rows in place into {shape_name(z['rows_table'])}, none, unique_indices",
          False, lambda: scatter_nd_rows_in_place("index_copy_"), "table.index_copy_(...) in place")

    def scatter_nd_pairs():
        idx = [torch.stack([rand_idx((pairs,), pt[0], 101 + i), rand_idx((pairs,), pt[1], 201 + i)], dim=1) for i in range(2)]
        upd = torch.ones(pairs, dtype=f32, device=DEV)
        x = ins(f32, pt)
        out = torch.empty(pt, dtype=f32, device=DEV)
        return Case(2 * numel(pt) * 4 + pairs * (2 * 8 + 4),
                    rotating(lambda k: out.copy_(x[k]).index_put_((idx[k][:, 0], idx[k][:, 1]), upd, accumulate=True), 2),
                    alloc=rotating(lambda k: x[k].index_put((idx[k][:, 0], idx[k][:, 1]), upd, accumulate=True), 2),
                    alloc_peer="x.index_put((idx[:, 0], idx[:, 1]), u, accumulate=True)")
    R.run("scatter_nd", f"{pairs >> 10}K pairs into {shape_name(pt)}, add", False, scatter_nd_pairs,
          "out.copy_(x).index_put_((idx[:, 0], idx[:, 1]), u, accumulate=True)")

    # Size sweeps: a join of one (a copy) and a constant pad of 1 on the last axis of [n/4096, 1024].
    for b in sweep_sizes(z["sweep_max"]):
        def copy(b=b):
            s = (b // 4096, 1024)
            x, out = ins(f32, s), torch.empty(s, dtype=f32, device=DEV)
            return sweep_case(2 * b, rotating(lambda k: torch.cat([x[k]], dim=0, out=out), len(x)))
        R.run("sweep: copy (join of one)", size_name(b), True, copy, "torch.cat([x], out=)")
    for b in sweep_sizes(z["sweep_max"]):
        def padc(b=b):
            s = (b // 4096, 1024)
            x = ins(f32, s)
            return sweep_case(b + s[0] * (s[1] + 2) * 4, rotating(lambda k: F.pad(x[k], (1, 1)), len(x)))
        R.run("sweep: pad constant 1", size_name(b), True, padc, 'F.pad(mode="constant")')

    # 100 small operators back to back: reflect pads of 64x64 by 3; the time reported is per
    # operator. The outputs of one batch are kept until its end, so they are 100 distinct tensors.
    small_bytes = (64 * 64 + 70 * 70) * 4

    def small(graph):
        x = torch.zeros((1, 64, 64), dtype=f32, device=DEV)

        def batch():
            return [F.pad(x, (3, 3, 3, 3), mode="reflect") for _ in range(100)]
        return Case(small_bytes, graphed(batch) if graph else batch, 100, graph)
    R.run("small ops", "100 pads 64x64 reflect 3", False, lambda: small(False), 'F.pad(mode="reflect") x100, eager')
    if not a.no_graph and not cpu:
        R.run("small ops", "100 pads 64x64 reflect 3 (CUDA graph)", False, lambda: small(True),
              'F.pad(mode="reflect") x100, one CUDA graph replay')

    def small_gather():
        tab = torch.ones((1024, 64), dtype=f32, device=DEV)
        idx = torch.randint(0, 1024, (16,), generator=torch.Generator().manual_seed(7)).to(DEV)
        outs = [torch.empty((16, 64), dtype=f32, device=DEV) for _ in range(100)]

        def batch():
            for o in outs:
                torch.index_select(tab, 0, idx, out=o)
        return Case(2 * 16 * 64 * 4 + 16 * 8, batch, 100)
    R.run("small ops", "100 gathers 16 rows of 1024x64", False, small_gather, "index_select(out=) x100")

    def small_join():
        x, y = torch.ones((64, 64), dtype=f32, device=DEV), torch.ones((1, 64), dtype=f32, device=DEV)
        outs = [torch.empty((65, 64), dtype=f32, device=DEV) for _ in range(100)]

        def batch():
            for o in outs:
                torch.cat([x, y], dim=0, out=o)
        return Case(2 * 65 * 64 * 4, batch, 100)
    R.run("small ops", "100 joins 64x64 + 1x64", False, small_join, "cat(out=) x100")

    def small_scatter():
        acc = torch.zeros((1024, 64), dtype=f32, device=DEV)
        idx = torch.randint(0, 1024, (16, 64), generator=torch.Generator().manual_seed(9)).to(DEV)
        upd = torch.ones((16, 64), dtype=f32, device=DEV)

        def batch():
            for _ in range(100):
                acc.scatter_add_(0, idx, upd)
        return Case(16 * 64 * (4 + 4 + 8 + 4), batch, 100)
    R.run("small ops", "100 scatter adds 16x64 into 1024x64", False, small_scatter, "scatter_add_ x100 (in place)")

    if a.json:
        doc = {"device": device, "backend": "torch-cpu" if cpu else "torch", "threads": threads, "quick": a.quick,
               "copy_kind": copy_kind(), "results": R.results}
        if timer:
            doc["timer"] = timer.name
        write_json(a.json, doc)
    return 0


def sweep_case(nbytes, fn):
    """A sweep point: on the CPU, as many calls per timed repetition as strix-bench makes (the
    timer's resolution); CUDA's timer repeats calls itself."""
    if DEV == "cuda":
        return Case(nbytes, fn)
    inner = sweep_inner(nbytes)

    def batch():
        for _ in range(inner):
            fn()
    return Case(nbytes, batch, inner)


if __name__ == "__main__":
    sys.exit(main())
