#!/usr/bin/env python3
"""PyTorch's scatter reductions on the same sizes as bench/reductions.cpp, for a side-by-side
comparison on one GPU: scatter_ (no reduction), scatter_reduce_ sum and amax (include_self),
with and without torch.use_deterministic_algorithms, and for float32 the copy and the scatter
kernels alone. Median times from triton's do_bench.

    torch_reductions.py [updates]
"""
import sys

import torch
from triton.testing import do_bench

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
dev = "cuda"
print(f"device: {torch.cuda.get_device_name()}, {n} updates, torch {torch.__version__}")
print(f"{'op':34s} {'case':22s} {'MB':>9s} {'ms':>10s} {'GB/s':>9s}")
for dtype in (torch.float32, torch.float16, torch.int32, torch.float64):
    for targets in (n, 65536):
        g = torch.Generator(device=dev).manual_seed(7)
        idx = torch.randperm(n, device=dev, generator=g) if targets == n else torch.randint(0, targets, (n,), device=dev, generator=g)
        upd = torch.ones(n, dtype=dtype, device=dev)  # as bench/reductions
        inp = torch.zeros(targets, dtype=dtype, device=dev)
        es = inp.element_size()
        mb = (2 * targets * es + n * (8 + es)) / 1e6
        case = f"{str(dtype).replace('torch.', '')}, " + ("1M unique" if targets == n else "1M onto 64K")

        def row(name, fn):
            ms = do_bench(fn, return_mode="median")
            print(f"{name:34s} {case:22s} {mb:9.1f} {ms:10.3f} {mb / 1e3 / (ms / 1e3):9.1f}")

        out = inp.clone()
        row("scatter_ (no reduction)", lambda: out.copy_(inp).scatter_(0, idx, upd))
        row("scatter_reduce_ sum", lambda: out.copy_(inp).scatter_reduce_(0, idx, upd, "sum"))
        if dtype != torch.float16:
            row("scatter_reduce_ amax", lambda: out.copy_(inp).scatter_reduce_(0, idx, upd, "amax"))
        if dtype == torch.float32:
            # the parts of the first two rows: the copy of the input, then the random stores or
            # atomic adds alone (no copy) — what any scatter of these updates has to pay
            row("  its copy_ alone", lambda: out.copy_(inp))
            row("  scatter_ alone (no copy)", lambda: out.scatter_(0, idx, upd))
            row("  scatter_reduce_ sum alone", lambda: out.scatter_reduce_(0, idx, upd, "sum"))
        torch.use_deterministic_algorithms(True)
        try:
            row("scatter_reduce_ sum, deterministic", lambda: out.copy_(inp).scatter_reduce_(0, idx, upd, "sum"))
        except RuntimeError as e:
            print(f"{'scatter_reduce_ sum, deterministic':34s} {case:22s} not supported: {str(e)[:60]}")
        torch.use_deterministic_algorithms(False)
