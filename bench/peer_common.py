"""What the NumPy and PyTorch peers of strix-bench share: its sizes, input rotation, case
names, the CPU's timing in turns with a copy, the printed table and the JSON it writes, so that
their rows match strix-bench's."""
import json
import platform
import statistics
import time

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3


def copies_for(nbytes):
    """How many copies of an input set to rotate between: two, one beyond 512 MiB (as strix-bench)."""
    return 1 if nbytes > 512 * MiB else 2


def cpu_sizes(quick):
    """strix-bench's pick_sizes(vulkan=false, quick): --quick only shortens the sweep."""
    return dict(table=(16384, 1024), lookups=8192, matrix=(16384, 1024), kv=(16, 16, 1139, 128), image=(4, 64, 256, 256),
                updates=1 << 20, sweep_max=64 * MiB if quick else GiB, elements=(8, 4, 512, 256), grid=(1024, 4096),
                pairs_table=(4096, 4096), pairs=1 << 20, rows_table=(262144, 64), rows=65536)


def gpu_sizes(quick):
    """strix-bench's pick_sizes(vulkan=true, quick)."""
    if quick:
        return dict(table=(8192, 512), lookups=8192, matrix=(4096, 1024), kv=(2, 16, 1139, 128), image=(1, 64, 256, 256),
                    updates=1 << 20, sweep_max=64 * MiB, elements=(2, 4, 128, 64), grid=(512, 512), pairs_table=(1024, 1024),
                    pairs=1 << 18, rows_table=(65536, 64), rows=16384)
    return dict(table=(131072, 4096), lookups=8192, matrix=(262144, 1024), kv=(16, 16, 1139, 128), image=(16, 64, 256, 256),
                updates=1 << 20, sweep_max=GiB, elements=(8, 64, 512, 256), grid=(4096, 4096), pairs_table=(4096, 4096),
                pairs=1 << 20, rows_table=(1048576, 64), rows=262144)


def sweep_sizes(sweep_max):
    """The bytes of the size sweeps: 4 KiB, then x4 up to sweep_max."""
    b = 4 * KiB
    while b <= sweep_max:
        yield b
        b *= 4


def sweep_inner(nbytes):
    """Calls per repetition of a CPU sweep point: enough for about 8 MiB moved (strix-bench's)."""
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


def measure_in_turns(nbytes, inner, f, copy, reps=9):
    """(median seconds of one call of f(k), median seconds of copy(k)): the operator and a copy of
    the same bytes timed in turns, repetition by repetition, after a warm-up of each, as
    strix-bench does on the CPU (both see the same load on a shared machine); `inner` calls per
    timed repetition, k counting every call."""
    op_t, copy_t, k, kc = [], [], 0, 0
    for i in range(reps + 1):
        for which in ((0, 1) if i % 2 else (1, 0)):
            t0 = time.perf_counter()
            for _ in range(inner):
                if which == 0:
                    f(k)
                    k += 1
                else:
                    copy(kc)
                    kc += 1
            s = (time.perf_counter() - t0) / inner
            if i:
                (op_t if which == 0 else copy_t).append(s)
    return statistics.median(op_t), statistics.median(copy_t)


def size_name(b):
    if b >= GiB:
        return f"{b // GiB} GiB"
    if b >= MiB:
        return f"{b // MiB} MiB"
    return f"{b // KiB} KiB"


def shape_name(s):
    return "x".join(str(d) for d in s)


def print_header():
    print(f"{'op':26s} {'case':38s} {'MB':>10s} {'median ms':>11s} {'GB/s':>9s} {'copy GB/s':>9s} {'ratio':>7s}")


def record(results, op, name, nbytes, secs, copy_s, sweep, copy_kind, **extra):
    """Appends one result in strix-bench's JSON fields (plus `extra`) and prints its row."""
    r = {"op": op, "case": name, "bytes": int(nbytes), "median_s": secs, "gbps": nbytes / secs / 1e9, "copy_s": copy_s,
         "copy_gbps": nbytes / copy_s / 1e9, "ratio": copy_s / secs, "sweep": sweep, "copy_kind": copy_kind, **extra}
    print(f"{op:26s} {name:38s} {nbytes / 1e6:10.3f} {secs * 1e3:11.4f} {r['gbps']:9.2f} {r['copy_gbps']:9.2f} {r['ratio']:7.2f}",
          flush=True)
    results.append(r)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
