#!/usr/bin/env python3
"""JAX (XLA) as a peer of strix-bench's scatters on a GPU, with and without JAX's
`unique_indices` hint, the promise strix's scatter_desc::unique_indices takes too.

    python3 bench/jax_peer.py [--quick] [--json FILE]

Cases (named as strix-bench names them, sizes from peer_common.gpu_sizes):
  scatter_nd  256K rows in place into [1M, 64]: table.at[rows].set(upd), the table donated
              (XLA updates it in place), with and without unique_indices=True
  scatter     column permutations [4096, 4096] axis 0, none: x.at[perm, column].set(upd), a
              new array (XLA fuses the copy), with and without unique_indices=True

Timing: each jitted call is run `inner` times back to back (each on the last one's result for the
donated table, two index sets in turn) and waited for once; a repetition's time divided by
`inner` is one call, the median of 15 repetitions is reported (after a warm-up that compiles).
That is host wall time of calls in flight one after another, the launch cost spread over them,
which is close to, but not, the device time strix-bench reports from timestamps; the first call
of a fresh jit (compile included) is reported beside it.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

from peer_common import gpu_sizes, shape_name

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    print("jax_peer: no jax here", file=sys.stderr)
    sys.exit(2)


def perm(n, seed):
    return np.random.default_rng(seed).permutation(n)


def timed(f, args_of, inner, reps=15):
    """Median seconds per call of f(*args_of(k)) over `reps` repetitions of `inner` calls;
    args_of may thread the last result through (donation)."""
    out = f(*args_of(0, None))
    jax.block_until_ready(out)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for k in range(inner):
            out = f(*args_of(k, out))
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times), out


def first_call(make, args):
    """Seconds of the first call of a freshly jitted function, compile included."""
    f = make()
    t0 = time.perf_counter()
    jax.block_until_ready(f(*args))
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    z = gpu_sizes(a.quick)
    dev = jax.devices()[0]
    print(f"jax {jax.__version__} on {dev.device_kind} ({dev.platform})")
    results = []
    inner = 20

    def report(op, name, nbytes, secs, first, note):
        gbs = nbytes / secs / 1e9
        print(f"{op:11s} {name:62s} {secs * 1e3:8.4f} ms  {gbs:7.1f} GB/s  first call {first * 1e3:8.1f} ms  ({note})")
        results.append(dict(op=op, name=name, bytes=nbytes, seconds=secs, first_call_seconds=first, peer=note))

    # scatter-nd of whole rows in place into an embedding table
    rt, n = tuple(z["rows_table"]), z["rows"]
    idx = [jnp.asarray(perm(rt[0], 93 + i)[:n].astype(np.int64 if jax.config.jax_enable_x64 else np.int32)) for i in range(2)]
    upd = jnp.ones((n, rt[1]), jnp.float32)
    nbytes = n * (2 * rt[1] * 4 + 8)
    for unique in (False, True):
        def make(unique=unique):
            return jax.jit(lambda t, i, u: t.at[i].set(u, unique_indices=unique), donate_argnums=0)
        f = make()
        table = jnp.zeros(rt, jnp.float32)
        secs, table = timed(f, lambda k, last: (table if last is None else last, idx[k % 2], upd), inner)
        del table
        first = first_call(make, (jnp.zeros(rt, jnp.float32), idx[0], upd))
        name = f"{n >> 10}K rows in place into {shape_name(rt)}, none" + (", unique_indices" if unique else "")
        report("scatter_nd", name, nbytes, secs, first, f"table.at[rows].set(upd{', unique_indices=True' if unique else ''}), donated")

    # scatter along axis 0 with a permutation per column, out of place
    g = tuple(z["grid"])
    cols = jnp.broadcast_to(jnp.arange(g[1], dtype=jnp.int32), g)
    pidx = []
    for i in range(2):
        rng = np.random.default_rng(81 + i)
        pidx.append(jnp.asarray(np.argsort(rng.random(g), axis=0).astype(np.int32)))
    x = [jnp.asarray(np.random.default_rng(7 + i).random(g, dtype=np.float32)) for i in range(2)]
    gu = jnp.ones(g, jnp.float32)
    gbytes = 2 * g[0] * g[1] * 4 + g[0] * g[1] * (8 + 4)
    for unique in (False, True):
        def make(unique=unique):
            return jax.jit(lambda xx, i, u: xx.at[i, cols].set(u, unique_indices=unique))
        f = make()
        secs, _ = timed(f, lambda k, last: (x[k % 2], pidx[k % 2], gu), inner)
        first = first_call(make, (x[0], pidx[0], gu))
        name = f"column permutations {shape_name(g)} axis 0, none" + (", unique_indices" if unique else "")
        report("scatter", name, gbytes, secs, first, f"x.at[perm, col].set(upd{', unique_indices=True' if unique else ''})")

    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dict(peer="jax", version=jax.__version__, device=dev.device_kind, timing="host wall per call, calls in flight",
                           results=results), fh, indent=1)


if __name__ == "__main__":
    main()
