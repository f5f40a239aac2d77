"""What the NumPy and PyTorch peers of strix-bench share: its size units, input rotation, case
names, the printed table and the JSON it writes, so that their rows match strix-bench's."""
import json

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3


def copies_for(nbytes):
    """How many copies of an input set to rotate between: two, one beyond 512 MiB (as strix-bench)."""
    return 1 if nbytes > 512 * MiB else 2


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
