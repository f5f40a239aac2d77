#!/usr/bin/python3
"""Plots the size sweeps of strix-bench / numpy_peer.py results: one PNG per sweep op, GB/s
against bytes moved, a solid line per results file and a dashed line for its copy baseline.

    plot_results.py OUT_DIR results1.json [results2.json ...]

bench/report.py draws the same sweeps as one PNG per backend, beside the results tables.
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir, files = argv[1], argv[2:]
    runs = []
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        label = f"{doc.get('backend', '?')}: {doc.get('device', '?')}"
        runs.append((label, [r for r in doc["results"] if r.get("sweep") or r["op"].startswith("sweep")]))
    ops = sorted({r["op"] for _, rs in runs for r in rs})
    if not ops:
        print("plot_results.py: no size-sweep results in the files", file=sys.stderr)
        return 1
    os.makedirs(out_dir, exist_ok=True)
    for op in ops:
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, (label, rs) in enumerate(runs):
            pts = sorted((r["bytes"], r["gbps"], r["copy_gbps"]) for r in rs if r["op"] == op)
            if not pts:
                continue
            x = [p[0] for p in pts]
            line, = ax.plot(x, [p[1] for p in pts], marker="o", label=label)
            ax.plot(x, [p[2] for p in pts], linestyle="--", color=line.get_color(), label=f"{label} (copy)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bytes moved")
        ax.set_ylabel("GB/s")
        ax.set_title(op)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        name = re.sub(r"[^A-Za-z0-9]+", "_", op).strip("_") + ".png"
        fig.savefig(os.path.join(out_dir, name), dpi=100)
        plt.close(fig)
        print(os.path.join(out_dir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
