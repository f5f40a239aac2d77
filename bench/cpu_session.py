#!/usr/bin/python3
"""One CPU measuring session of strix-bench beside its NumPy and PyTorch peers, case by case: for
each case, strix-bench at N threads and at one, numpy_peer.py, and torch_peer.py --device cpu at
one thread and at N run one after the other (in the opposite order for the next case), each with
--filter naming that case; then each runner's rows are merged into one JSON file, as if it had
run every case itself. On a shared machine whose load changes within a minute, the five figures
of a case are then taken within seconds of each other rather than minutes apart.

    cpu_session.py PREFIX [--threads N] [--cases FILE] [--filter TEXT] [--no-torch]

Writes PREFIX-cpuN.json, PREFIX-cpu1.json, PREFIX-numpy.json, PREFIX-torch-cpu1.json and
PREFIX-torch-cpuN.json (the files bench/make_results.sh and report.py read). The cases are the
rows of FILE (a strix-bench --json file); without it, a first strix-bench run at one thread lists
them and is not kept. Every runner gets --quick: the CPU's quick sizes are its full sizes with a
shorter sweep.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # Debian's, with numpy and torch


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--bench", default=os.path.join(HERE, "..", "build", "bench", "strix-bench"), help="the strix-bench binary")
    ap.add_argument("--cases", help="a strix-bench JSON whose (op, case) rows to run (default: a first strix-bench run's)")
    ap.add_argument("--filter", default="", help="only the cases whose 'op case' contains TEXT")
    ap.add_argument("--no-torch", action="store_true")
    a = ap.parse_args()
    n = a.threads
    runners = [(f"cpu{n}", [a.bench, "--quick", "--threads", str(n)]), ("cpu1", [a.bench, "--quick", "--threads", "1"]),
               ("numpy", [PY, os.path.join(HERE, "numpy_peer.py"), "--quick"])]
    if not a.no_torch:
        peer = [PY, os.path.join(HERE, "torch_peer.py"), "--device", "cpu", "--quick"]
        runners += [("torch-cpu1", peer + ["--threads", "1"]), (f"torch-cpu{n}", peer + ["--threads", str(n)])]
    with tempfile.TemporaryDirectory() as tmp:
        listing = a.cases
        if not listing:
            listing = os.path.join(tmp, "cases.json")
            subprocess.run([a.bench, "--quick", "--threads", "1", "--filter", a.filter, "--json", listing], check=True,
                           stdout=subprocess.DEVNULL)
        with open(listing) as f:
            cases = [(r["op"], r["case"]) for r in json.load(f)["results"] if a.filter in f"{r['op']} {r['case']}"]
        docs = {}
        for i, (op, case) in enumerate(cases):
            order = runners if i % 2 == 0 else runners[::-1]
            print(f"[{i + 1}/{len(cases)}] {op} {case}", flush=True)
            for name, cmd in order:
                out = os.path.join(tmp, f"{name}.json")
                r = subprocess.run(cmd + ["--filter", f"{op} {case}", "--json", out], capture_output=True, text=True)
                if r.returncode != 0 or not os.path.exists(out):
                    print(f"  {name}: failed ({r.returncode}): {r.stderr.strip()[-300:]}", flush=True)
                    continue
                with open(out) as f:
                    doc = json.load(f)
                os.remove(out)
                # the filter is a substring: keep the case itself and its peers' variants of it
                # (an allocating call, a bare kernel), not a longer case name that contains it
                rows = [x for x in doc["results"] if x["op"] == op and (x["case"] == case or x["case"].startswith(case + " ("))]
                merged = docs.setdefault(name, {**doc, "results": []})
                merged["results"] += rows
    for name, doc in docs.items():
        path = f"{a.prefix}-{name}.json"
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
