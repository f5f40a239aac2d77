#!/usr/bin/env python3
"""The Vulkan backend's two paths side by side, from two strix-bench JSON files of one machine:
the full path (device addresses, 64-bit arithmetic) and the baseline path (STRIX_VULKAN_PROFILE=
baseline: descriptor-bound operands, 32-bit arithmetic). Each run's ratio to its own copy
shader ("/ copy": copy time / op time) is compared, and the baseline's share of the full path's
ratio is checked against issue 41's targets: moves (join, split, pad, row gather) >= 0.90,
index-driven operators >= 0.70. "baseline time / full" is the two paths' plain time ratio (issue
41 asks for at most 1.5 on lavapipe).

    python3 bench/paths_compare.py FULL.json BASELINE.json        a Markdown table on stdout

Python's standard library only.
"""
import json
import sys


def is_move(op, case):
    return op in ("join", "split", "pad") or (op == "gather" and case.startswith("embedding rows")) or op.startswith("sweep")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    full, base = (json.load(open(p, encoding="utf-8")) for p in argv[1:])
    by_case = {(r["op"], r["case"]): r for r in base["results"]}
    print(f"full: {full.get('device', '?')}, `{argv[1]}`; baseline: {base.get('device', '?')}, `{argv[2]}`\n")
    print("| op | case | full GB/s | full / copy | baseline GB/s | baseline / copy | baseline's share of full | target | baseline time / full |")
    print("|---|---|---|---|---|---|---|---|---|")
    met = missed = 0
    worst = 0.0
    for r in full["results"]:
        b = by_case.get((r["op"], r["case"]))
        if not b or not r.get("ratio") or not b.get("ratio"):
            print(f"| {r['op']} | {r['case']} | {r.get('gbps', 0):.0f} | {r.get('ratio') or 0:.2f} | — | — | — | not run on the baseline path | — |")
            continue
        share = b["ratio"] / r["ratio"]
        target = 0.9 if is_move(r["op"], r["case"]) else 0.7
        ok = share >= target
        met += ok
        missed += not ok
        slower = r["gbps"] / b["gbps"] if b.get("gbps") else float("inf")
        worst = max(worst, slower)
        print(f"| {r['op']} | {r['case']} | {r['gbps']:.0f} | {r['ratio']:.2f} | {b['gbps']:.0f} | {b['ratio']:.2f} | {share:.2f} | "
              f"{'>=' if ok else '**<**'} {target:.2f} | {slower:.2f} |")
    print(f"\n{met} cases meet their target, {missed} do not; the baseline path takes at most {worst:.2f}x the full path's time.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
