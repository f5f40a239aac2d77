#!/usr/bin/env python3
"""Peers of strix-bench's chain cases (the same five chains, sizes and bytes formula: the output
written and as many bytes read, so that the ratio is against one copy of the output's bytes).

    chain_peers.py [--device cuda|cpu] [--quick] [--json FILE]

cuda (the H200 machine): PyTorch eagerly, torch.compile of the same function (Inductor fuses a
chain into one kernel), and jax.jit (XLA) where JAX imports, beside torch's copy_ of the output's
bytes. Torch: triton.testing.do_bench where triton imports (median, L2 cleared before each call),
else CUDA events (bench/torch_peer.py's Timer). JAX: `inner` jitted calls in flight back to back,
waited for once, the median of 15 repetitions of that divided by `inner` (host wall time with
the launch cost spread over the calls; bench/jax_peer.py does the same), and beside it one call
waited for at a time ("each waited": the median of 15, host wall time of the call and its wait).
cpu: NumPy (np.take, np.pad, np.concatenate, slicing, np.tile; one thread, eager), beside
np.copyto of the output's bytes, timed in turns (peer_common.measure_in_turns).

The chains (x is strix-bench's image, [N, 64, 256, 256] float32; p 48 random channels):
  gather, pad, join               cat([pad(take(x, p, 1), 3, reflect), other], 1)
  crop, pad, join                 cat([pad(x[:, :, 1:-1, 1:-1], 4, reflect), other], 1)
  split, pad each, join           cat([pad(a, 3, reflect), pad(b, 3, wrap), pad(c, 3, zeros)], 1)
  slice ::2, tile 2               tile(x[..., ::2], (1, 1, 1, 2))
  crop, gather, pad, crop, join   cat([pad(take(x[:, :, 2:], p, 1), 4, reflect)[:, :, 1:-1, 1:-1], other], 1)
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

from peer_common import cpu_name, cpu_sizes, gpu_sizes, measure_in_turns, shape_name


def chains(xp, pad, take, cat, tile):
    """The five chains over an array module's calls: (name, fn(x, p, other3, other4), output shape fn)."""
    def gpj(x, p, o3, o4):
        return cat([pad(take(x, p, 1), 3, "reflect"), o3], 1)

    def cpj(x, p, o3, o4):
        return cat([pad(x[:, :, 1:-1, 1:-1], 4, "reflect"), o3], 1)

    def spj(x, p, o3, o4):
        ch = x.shape[1]
        t = ch // 3
        a, b, c = x[:, :t], x[:, t:2 * t], x[:, 2 * t:]
        return cat([pad(a, 3, "reflect"), pad(b, 3, "wrap"), pad(c, 3, "constant")], 1)

    def st(x, p, o3, o4):
        return tile(x[..., ::2], (1, 1, 1, 2))

    def five(x, p, o3, o4):
        return cat([pad(take(x[:, :, 2:], p, 1), 4, "reflect")[:, :, 1:-1, 1:-1], o4], 1)

    return [("gather, pad, join", gpj), ("crop, pad, join", cpj), ("split, pad each, join", spj), ("slice ::2, tile 2", st),
            ("crop, gather, pad, crop, join", five)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    results = []

    def report(peer, name, nbytes, secs, copy_s, kind):
        ratio = copy_s / secs
        print(f"{peer:24s} {name:34s} {nbytes / 1e6:10.3f} {secs * 1e3:11.4f} {nbytes / secs / 1e9:9.2f} {nbytes / copy_s / 1e9:9.2f} {ratio:7.2f}",
              flush=True)
        results.append({"op": "chain", "case": name, "peer": peer, "bytes": int(nbytes), "median_s": secs, "copy_s": copy_s, "ratio": ratio,
                        "copy_kind": kind})

    print(f"{'peer':24s} {'case':34s} {'MB':>10s} {'median ms':>11s} {'GB/s':>9s} {'copy GB/s':>9s} {'ratio':>7s}")
    if a.device == "cpu":
        n, ch, h, w = cpu_sizes(a.quick)["image"]
        rng = np.random.default_rng(3)
        xs = [np.ones((n, ch, h, w), np.float32) for _ in range(2)]
        p = rng.integers(0, ch, ch * 3 // 4)
        o3 = np.ones((n, ch // 4, h + 6, w + 6), np.float32)
        o4 = np.ones((n, ch // 4, h + 4, w + 6), np.float32)

        def pad(x, k, mode):
            return np.pad(x, ((0, 0), (0, 0), (k, k), (k, k)), mode=mode)
        device = f"{cpu_name()}, numpy {np.__version__}, 1 thread"
        print(f"device: {device}")
        for name, fn in chains(np, pad, lambda x, i, ax: np.take(x, i, axis=ax), lambda v, ax: np.concatenate(v, axis=ax), np.tile):
            out = fn(xs[0], p, o3, o4)
            nbytes = 2 * out.nbytes
            src, dst = [np.ones(out.nbytes, np.uint8) for _ in range(2)], np.zeros(out.nbytes, np.uint8)
            secs, copy_s = measure_in_turns(nbytes, 1, lambda k: fn(xs[k % 2], p, o3, o4), lambda k: np.copyto(dst, src[k % 2]))
            report("numpy", name + " " + shape_name((n, ch, h, w)), nbytes, secs, copy_s, "np.copyto")
    else:
        import torch
        import torch.nn.functional as F
        from torch_peer import Timer, rotating
        n, ch, h, w = gpu_sizes(a.quick)["image"]
        dev = "cuda"
        xs = [torch.randn(n, ch, h, w, device=dev) for _ in range(2)]
        p = torch.randint(0, ch, (ch * 3 // 4,), device=dev)
        o3 = torch.randn(n, ch // 4, h + 6, w + 6, device=dev)
        o4 = torch.randn(n, ch // 4, h + 4, w + 6, device=dev)
        timer = Timer("auto", 20)
        device = f"{torch.cuda.get_device_name()}, torch {torch.__version__}; timer: {timer.name}"
        print(f"device: {device}")
        tmodes = {"reflect": "reflect", "wrap": "circular", "constant": "constant"}

        def tpad(x, k, mode):
            return F.pad(x, (k, k, k, k), mode=tmodes[mode])
        tchains = chains(torch, tpad, lambda x, i, ax: torch.index_select(x, ax, i), lambda v, ax: torch.cat(v, ax),
                         lambda x, r: x.repeat(*r))
        for name, fn in tchains:
            out = fn(xs[0], p, o3, o4)
            nbytes = 2 * out.numel() * 4
            src, dst = [torch.empty_like(out) for _ in range(2)], torch.empty_like(out)
            copy_s = timer(rotating(lambda k: dst.copy_(src[k]), 2))
            del src, dst
            full = name + " " + shape_name((n, ch, h, w))
            report("torch eager", full, nbytes, timer(rotating(lambda k: fn(xs[k], p, o3, o4), 2)), copy_s, "torch copy_")
            compiled = torch.compile(fn)
            got = compiled(xs[0], p, o3, o4)
            assert torch.equal(got, out), name
            report("torch.compile", full, nbytes, timer(rotating(lambda k: compiled(xs[k], p, o3, o4), 2)), copy_s, "torch copy_")
            torch.cuda.empty_cache()
        try:
            import jax
            import jax.numpy as jnp
        except ImportError:
            jax = None
            print("(no jax here)")
        if jax is not None:
            jxs = [jnp.asarray(x.cpu().numpy()) for x in xs]
            jp, jo3, jo4 = jnp.asarray(p.cpu().numpy()), jnp.asarray(o3.cpu().numpy()), jnp.asarray(o4.cpu().numpy())

            def jpad(x, k, mode):
                return jnp.pad(x, ((0, 0), (0, 0), (k, k), (k, k)), mode=mode)
            for (name, fn), (_, tfn) in zip(chains(jnp, jpad, lambda x, i, ax: jnp.take(x, i, axis=ax),
                                                   lambda v, ax: jnp.concatenate(v, axis=ax), jnp.tile), tchains):
                f = jax.jit(fn)
                out = f(jxs[0], jp, jo3, jo4).block_until_ready()
                want = tfn(xs[0], p, o3, o4).cpu().numpy()
                assert np.array_equal(np.asarray(out), want), name
                nbytes = 2 * out.size * 4
                inner, reps = 20, []
                for _ in range(16):
                    t0 = time.perf_counter()
                    for k in range(inner):
                        r = f(jxs[k % 2], jp, jo3, jo4)
                    r.block_until_ready()
                    reps.append((time.perf_counter() - t0) / inner)
                # the copy baseline of the torch rows (same device, same bytes)
                tout = torch.empty(out.size, device=dev)
                src = [torch.empty_like(tout) for _ in range(2)]
                copy_s = timer(rotating(lambda k: tout.copy_(src[k]), 2))
                report("jax.jit", name + " " + shape_name((n, ch, h, w)), nbytes, statistics.median(reps[1:]), copy_s, "torch copy_")
                # what a program that waits for each call sees: one call, waited for (host wall)
                single = []
                for k in range(16):
                    t0 = time.perf_counter()
                    f(jxs[k % 2], jp, jo3, jo4).block_until_ready()
                    single.append(time.perf_counter() - t0)
                report("jax.jit, each waited", name + " " + shape_name((n, ch, h, w)), nbytes, statistics.median(single[1:]), copy_s, "torch copy_")
                del tout, src
                torch.cuda.empty_cache()
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"device": device, "results": results}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
