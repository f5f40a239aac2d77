#!/usr/bin/env python3
"""Regenerates the benchmark tables and size-sweep plots from the JSON that strix-bench and its
peers write (strix-bench --json, numpy_peer.py --json, torch_peer.py [--device cpu] --json).

    report.py [--cpu FILE] [--cpu1 FILE] [--numpy FILE] [--torch-cpu FILE] [--torch-cpu1 FILE]
              [--vulkan FILE] [--torch FILE] [--out DIR] [--tables FILE] [--results-md FILE] [--no-plots]

Writes, into --out:
  tables.md         one markdown table for the GPU (strix Vulkan beside PyTorch CUDA) and one
                    for the CPU (strix at N threads and at one thread beside NumPy, and beside
                    PyTorch on the CPU at the same thread counts where given): per case,
                    strix GB/s, strix's ratio to the copy of its own run, the peer's GB/s, the
                    strix / peer speed ratio, and whether each performance target is met
  sweep-cpu.png     GB/s against bytes moved for the CPU size sweeps, copy baselines dashed
  sweep-vulkan.png  the same for the GPU
With --results-md FILE, the tables also replace what lies between the lines
`<!-- tables:begin -->` and `<!-- tables:end -->` of FILE (appended at its end if it has none).

Targets checked:
  GPU  join, split, pad (every mode), row gather: >= 0.90 of the copy of the same run;
       gather-elements (last axis) and scatter (1M): >= 1.5x PyTorch; reflect / edge / symmetric
       pad: >= 2x PyTorch's F.pad (which has no symmetric mode); 100 small ops: <= 3 us per
       operator. The index-driven cases of the CPU-kernels issue: gather-elements with random
       indices on each axis: >= 1.2x PyTorch's gather; scatter of column permutations: >= 1.0x
       PyTorch's copy_ + scatter_ (scatter_add_) and <= 1.1x the time of its bare kernel (the
       "(bare ...)" row); its deterministic add: <= 2.5x strix's atomic add on the same case.
  CPU  join, split, pad (every mode), row gather: >= 0.85 of memcpy, on one thread (--cpu1, a
       --threads 1 run) and at N threads (--cpu); >= 2x NumPy on pad, >= 1x NumPy elsewhere
       (judged on the one-thread run where given, NumPy being single-threaded; else on --cpu);
       >= 1x PyTorch (CPU) on every case it has, thread count against the same thread count
       (--torch-cpu1 beside --cpu1, --torch-cpu beside --cpu).
Rows are matched by (op, case), else by the case name without its shapes (a --quick run beside a
full one; such pairs are compared by rate and marked †). A missing input leaves its columns and
checks out. The PyTorch peers' rows with no strix counterpart (F.embedding, the CUDA-graph replay
of the 100 small ops, the bare scatter kernels, the CPU's allocating calls) are listed under their
table.

Example (the files of one measuring session):
  python3 bench/report.py --cpu bench/results/D-cpu.json --cpu1 bench/results/D-cpu1.json \\
      --numpy bench/results/D-numpy.json --vulkan bench/results/D-vulkan.json \\
      --torch bench/results/D-torch.json --out bench/results --results-md bench/RESULTS.md
"""
import argparse
import json
import os
import re
import sys

BEGIN, END = "<!-- tables:begin -->", "<!-- tables:end -->"


def load(path):
    if not path:
        return None
    with open(path) as f:
        doc = json.load(f)
    doc["_path"] = path
    doc["_rows"] = {(r["op"], r["case"]): r for r in doc.get("results", [])}
    doc["_loose"] = {}
    for r in doc.get("results", []):
        doc["_loose"].setdefault((r["op"], loose(r["case"])), r)
    return doc


def loose(case):
    """A case name without its shapes, to pair a --quick run with a full one (marked with †)."""
    return re.sub(r"\d+(x\d+)+(\+1)?", "#", case)


def find(doc, key):
    """The row of doc for (op, case): by exact name, else by the name without shapes."""
    if doc is None:
        return None
    r = doc["_rows"].get(key)
    return r if r is not None else doc["_loose"].get((key[0], loose(key[1])))


def main_rows(doc):
    """The non-sweep rows of a run, in the order it ran them."""
    return [r for r in doc["results"] if not is_sweep(r)]


def is_sweep(r):
    return bool(r.get("sweep")) or r["op"].startswith("sweep")


def timed(r):
    return r is not None and not r.get("unsupported") and r.get("median_s")


def fmt(x, digits=2):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}f}"


def mb(nbytes):
    return f"{nbytes / 1e6:.3f}" if nbytes < 1e5 else fmt(nbytes / 1e6, 1)


def verdict(ok):
    return "yes" if ok else "**no**"


class Checks:
    """Collects the target checks of one table: each is a short text and yes / no / n/a."""

    def __init__(self):
        self.met = self.total = self.na = 0

    def check(self, label, value, ok):
        if value is None:
            self.na += 1
            return f"{label}: n/a"
        self.total += 1
        self.met += bool(ok)
        return f"{label}: {verdict(ok)}"

    def summary(self):
        s = f"Targets met: {self.met} of {self.total}"
        return s + (f" ({self.na} not measurable: no peer or no input)." if self.na else ".")


def speed_ratio(a, b):
    """How many times faster run row a is than run row b on the same case (None when either is missing)."""
    if not timed(a) or not timed(b):
        return None
    if a["bytes"] == b["bytes"]:
        return b["median_s"] / a["median_s"]
    return a["gbps"] / b["gbps"]  # sizes differ (a --quick run beside a full one): compare rates


def size_note(a, b):
    return " †" if timed(a) and timed(b) and a["bytes"] != b["bytes"] else ""


def describe(doc, name):
    kind = doc.get("copy_kind", "?")
    extra = ", quick sizes" if doc.get("quick") else ""
    return f"- {name}: {doc.get('device', '?')}{extra}; copy: {kind} (`{os.path.basename(doc['_path'])}`)"


def pad_mode(case):
    return case.split(" ", 1)[0]


def copy_target(op, case):
    """Cases that must run near the copy: joins, splits, pads and the row gather."""
    return op in ("join", "split", "pad") or (op == "gather" and case.startswith("embedding rows"))


def us(r):
    return r["median_s"] * 1e6 if timed(r) else None


# ---------------------------------------------------------------------------------------------

def gpu_table(vk, th):
    base = vk or th
    lines = ["### GPU: strix (Vulkan) beside PyTorch (CUDA)", ""]
    if vk:
        lines.append(describe(vk, "strix"))
    if th:
        lines.append(describe(th, "PyTorch"))
    lines += ["", "GB/s count each input read once and each output written once; \"/ copy\": copy time / op time "
              "within the same run (1.00 = as fast as a copy); \"strix / torch\": torch time / strix time.", ""]
    head = ["op", "case", "MB"]
    if vk:
        head += ["strix GB/s", "strix / copy"]
    if th:
        head += ["torch GB/s", "torch / its copy"]
    if vk and th:
        head += ["strix / torch"]
    if vk:
        head += ["targets"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    C, used, notes = Checks(), set(), []
    for r in main_rows(base):
        key = (r["op"], r["case"])
        s = find(vk, key)
        t = find(th, key)
        used.add(id(t))
        if vk and s is None:
            continue  # a peer-only row: listed below the table
        row = [r["op"], r["case"], mb(r["bytes"])]
        if vk:
            row += [fmt(s["gbps"]) if timed(s) else "—", fmt(s["ratio"]) if timed(s) else "—"]
        if th:
            if t is not None and t.get("unsupported"):
                row += ["no torch op", "—"]
            else:
                row += [fmt(t["gbps"]) if timed(t) else "—", fmt(t["ratio"]) if timed(t) else "—"]
        ratio = speed_ratio(s, t)
        notes.append(size_note(s, t))
        if vk and th:
            row += [(fmt(ratio) + "x" + size_note(s, t)) if ratio is not None else "—"]
        if vk:
            row.append(gpu_targets(C, r["op"], r["case"], s, t, th is not None, vk, th))
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    if vk:
        lines.append(C.summary())
    extra = [t for t in main_rows(th) if id(t) not in used and timed(t)] if th and vk else []
    if extra:
        lines += ["", "PyTorch rows with no strix counterpart: " + "; ".join(
            f"{t['op']} {t['case']}: {fmt(t['gbps'])} GB/s" + (f", {us(t):.2f} us per op" if t["op"] == "small ops" else "")
            for t in extra) + "."]
    if any(notes):
        lines += ["", "† sizes differ between the two runs (a --quick run beside a full one): rates compared, not times."]
    return lines


def index_driven(op, case):
    """The CPU-kernels issue's GPU cases: gather-elements with random indices on each axis, and
    the scatter of column permutations (its targets differ from the older cases')."""
    return (op == "gather_elements" and " random " in case) or (op == "scatter" and case.startswith("column permutations"))


def gpu_targets(C, op, case, s, t, have_torch, vk=None, th=None):
    parts = []
    if copy_target(op, case):
        v = s["ratio"] if timed(s) else None
        parts.append(C.check(">= 0.90 copy", v, v is not None and v >= 0.90))
    if index_driven(op, case):
        if op == "gather_elements" and have_torch:
            if t is not None and t.get("unsupported"):
                C.na += 1
                parts.append(">= 1.2x torch: n/a (no torch op)")
            else:
                v = speed_ratio(s, t)
                parts.append(C.check(">= 1.2x torch", v, v is not None and v >= 1.2))
        elif case.endswith(", deterministic"):
            atomic = find(vk, (op, case[: -len(", deterministic")]))
            v = s["median_s"] / atomic["median_s"] if timed(s) and timed(atomic) else None
            parts.append(C.check("<= 2.5x the atomic add", v, v is not None and v <= 2.5) + (f" ({v:.2f}x)" if v is not None else ""))
        elif have_torch:
            v = speed_ratio(s, t)
            parts.append(C.check(">= 1.0x torch", v, v is not None and v >= 1.0))
            red = case.rsplit(", ", 1)[-1]
            bare = find(th, (op, f"{case} (bare {'scatter_' if red == 'none' else 'scatter_add_'})"))
            v = s["median_s"] / bare["median_s"] if timed(s) and timed(bare) else None
            parts.append(C.check("<= 1.1x torch's bare kernel", v, v is not None and v <= 1.1) + (f" ({v:.2f}x)" if v is not None else ""))
    elif op in ("gather_elements", "scatter") and have_torch:
        v = speed_ratio(s, t)
        parts.append(C.check(">= 1.5x torch", v, v is not None and v >= 1.5))
    if op == "pad" and pad_mode(case) in ("reflect", "edge", "symmetric") and have_torch:
        if t is not None and t.get("unsupported") or pad_mode(case) == "symmetric":
            C.na += 1
            parts.append(">= 2x torch: n/a (F.pad has no symmetric mode)")
        else:
            v = speed_ratio(s, t)
            parts.append(C.check(">= 2x torch", v, v is not None and v >= 2.0))
    if op == "small ops":
        v = us(s)
        parts.append(C.check("<= 3 us/op", v, v is not None and v <= 3.0) + (f" ({v:.2f} us)" if v is not None else ""))
    return "; ".join(parts) if parts else "—"


def cpu_table(cpu, cpu1, npy, tc=None, tc1=None):
    base = cpu or cpu1 or npy or tc or tc1
    strix_np = cpu1 or cpu  # the run judged against NumPy
    lines = ["### CPU: strix beside NumPy" + (" and PyTorch" if tc or tc1 else ""), ""]
    if cpu:
        lines.append(describe(cpu, f"strix, {cpu.get('threads', '?')} threads"))
    if cpu1:
        lines.append(describe(cpu1, "strix, 1 thread"))
    if npy:
        lines.append(describe(npy, "NumPy"))
    for doc in (tc, tc1):
        if doc:
            lines.append(describe(doc, f"PyTorch (CPU), {doc.get('threads', '?')} thread{'s' if doc.get('threads') != 1 else ''}"))
    lines += ["", "\"/ memcpy\": memcpy time / op time within the same run (memcpy on as many threads as the op); "
              "\"x NumPy\": NumPy time / strix time" + ("; \"x PyTorch\": PyTorch time / strix time, at the same thread count "
                                                       "(PyTorch writing into preallocated outputs where it can: `out=`, `copy_`)"
                                                       if tc or tc1 else "") + "."]
    if npy and strix_np:
        lines.append(f"NumPy targets are judged on the {'one-thread' if cpu1 else str(cpu.get('threads', 'N')) + '-thread'} strix run.")
    lines.append("")
    nthr = f"{cpu.get('threads', 'N')} thr" if cpu else ""
    head = ["op", "case", "MB"]
    if cpu:
        head += [f"strix {nthr} GB/s", "/ memcpy"]
    if cpu1:
        head += ["strix 1 thr GB/s", "/ memcpy"]
    if npy:
        head += ["NumPy GB/s"]
        if cpu:
            head += [f"{nthr} x NumPy"]
        if cpu1:
            head += ["1 thr x NumPy"]
    # PyTorch, each run beside the strix run of its thread count
    torch_pairs = [(doc, strix) for doc, strix in ((tc1, cpu1), (tc, cpu)) if doc]
    for doc, _ in torch_pairs:
        t = f"{doc.get('threads', 'N')} thr"
        head += [f"PyTorch {t} GB/s", f"{t} x PyTorch"]
    if cpu or cpu1:
        head += ["targets"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    C, notes, used = Checks(), [], set()
    for r in main_rows(base):
        key = (r["op"], r["case"])
        s, s1, n = find(cpu, key), find(cpu1, key), find(npy, key)
        notes += [size_note(x, n) for x in (s, s1)]
        if (cpu or cpu1) and s is None and s1 is None:
            continue
        row = [r["op"], r["case"], mb(r["bytes"])]
        for run, x in ((cpu, s), (cpu1, s1)):
            if run:
                row += [fmt(x["gbps"]) if timed(x) else "—", fmt(x["ratio"]) if timed(x) else "—"]
        if npy:
            row += [fmt(n["gbps"]) if timed(n) else "—"]
            for run, x in ((cpu, s), (cpu1, s1)):
                if run:
                    v = speed_ratio(x, n)
                    row += [(fmt(v) + "x" + size_note(x, n)) if v is not None else "—"]
        torch_rows = []
        for doc, strix in torch_pairs:
            t = find(doc, key)
            used.add(id(t))
            x = find(strix, key) if strix else None
            torch_rows.append((doc, t, x))
            if t is not None and t.get("unsupported"):
                row += ["no torch op", "—"]
                continue
            v = speed_ratio(x, t)
            notes.append(size_note(x, t))
            row += [fmt(t["gbps"]) if timed(t) else "—", (fmt(v) + "x" + size_note(x, t)) if v is not None else "—"]
        if cpu or cpu1:
            row.append(cpu_targets(C, r["op"], r["case"], s, s1, n, cpu, cpu1, npy, torch_rows))
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    if cpu or cpu1:
        lines.append(C.summary())
    # PyTorch's rows with no strix counterpart (its allocating calls, its bare scatter kernels): a
    # table of their own, each beside the row of the same case that writes into a given output
    extra = {}
    for doc, _ in torch_pairs:
        for t in main_rows(doc):
            if id(t) not in used and timed(t):
                extra.setdefault((t["op"], t["case"]), {})[id(doc)] = t
    if extra:
        head = ["op", "PyTorch row", "call"]
        for doc, _ in torch_pairs:
            t = f"{doc.get('threads', 'N')} thr"
            head += [f"{t} GB/s", f"{t} time / out= time"]
        lines += ["", "PyTorch rows with no strix counterpart (\"time / out= time\": against the same case's row above):", "",
                  "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for (op, case), by_doc in extra.items():
            any_row = next(iter(by_doc.values()))
            row = [op, case, f"`{any_row.get('peer', '?')}`"]
            base_case = re.sub(r" \((allocating|bare [^)]*)\)$", "", case)
            for doc, _ in torch_pairs:
                t = by_doc.get(id(doc))
                b = find(doc, (op, base_case))
                row += [fmt(t["gbps"]) if timed(t) else "—",
                        fmt(t["median_s"] / b["median_s"]) if timed(t) and timed(b) and b is not t else "—"]
            lines.append("| " + " | ".join(row) + " |")
    if any(notes):
        lines += ["", "† sizes differ between the two runs (a --quick run beside a full one): rates compared, not times."]
    return lines


def cpu_targets(C, op, case, s, s1, n, cpu, cpu1, npy, torch_rows=()):
    parts = []
    if copy_target(op, case):
        if cpu1:
            v = s1["ratio"] if timed(s1) else None
            parts.append(C.check(">= 0.85 memcpy, 1 thr", v, v is not None and v >= 0.85))
        if cpu:
            v = s["ratio"] if timed(s) else None
            parts.append(C.check(f">= 0.85 memcpy, {cpu.get('threads', 'N')} thr", v, v is not None and v >= 0.85))
    if npy:
        v = speed_ratio(s1 if cpu1 else s, n)
        need = 2.0 if op == "pad" else 1.0
        parts.append(C.check(f">= {need:g}x NumPy", v, v is not None and v >= need))
    for doc, t, x in torch_rows:
        if t is None or t.get("unsupported"):
            continue  # no such PyTorch call: nothing to judge
        v = speed_ratio(x, t)
        parts.append(C.check(f">= 1x PyTorch, {doc.get('threads', 'N')} thr", v, v is not None and v >= 1.0))
    return "; ".join(parts) if parts else "—"


# ---------------------------------------------------------------------------------------------

def plot_sweeps(runs, path, title):
    """One PNG: a panel per sweep op, GB/s against bytes moved; a solid line per run and a dashed
    line (same colour) for the copy baseline measured in that run. runs: [(label, doc)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    runs = [(label, [r for r in doc["results"] if is_sweep(r) and timed(r)]) for label, doc in runs if doc]
    ops = []
    for _, rs in runs:
        for r in rs:
            if r["op"] not in ops:
                ops.append(r["op"])
    if not ops:
        return False
    fig, axes = plt.subplots(1, len(ops), figsize=(5.5 * len(ops), 4.2), squeeze=False)
    for ax, op in zip(axes[0], ops):
        for label, rs in runs:
            pts = sorted((r["bytes"], r["gbps"], r["copy_gbps"]) for r in rs if r["op"] == op)
            if not pts:
                continue
            x = [p[0] for p in pts]
            line, = ax.plot(x, [p[1] for p in pts], marker="o", markersize=3, label=label)
            ax.plot(x, [p[2] for p in pts], linestyle="--", linewidth=1, color=line.get_color(), label=f"{label}: copy")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: byte_label(v)))
        ax.set_yscale("log")
        ax.set_xlabel("bytes moved")
        ax.set_ylabel("GB/s")
        ax.set_title(op.replace("sweep: ", ""), fontsize="medium")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def byte_label(v):
    for unit, scale in (("G", 2 ** 30), ("M", 2 ** 20), ("K", 2 ** 10)):
        if v >= scale:
            return f"{v / scale:g}{unit}"
    return f"{v:g}"


def short(doc, name):
    return f"{name} ({doc.get('device', '?').split(',')[0]})"


# ---------------------------------------------------------------------------------------------

def replace_block(md_path, body):
    with open(md_path) as f:
        text = f.read()
    block = f"{BEGIN}\n{body.rstrip()}\n{END}"
    if BEGIN in text and END in text and text.index(BEGIN) < text.index(END):
        a, b = text.index(BEGIN), text.index(END) + len(END)
        text = text[:a] + block + text[b:]
    else:
        print(f"report.py: no {BEGIN} ... {END} block in {md_path}: appended one at its end", file=sys.stderr)
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(md_path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpu", metavar="FILE", help="strix-bench --backend cpu JSON (N threads)")
    ap.add_argument("--cpu1", metavar="FILE", help="strix-bench --backend cpu --threads 1 JSON")
    ap.add_argument("--numpy", metavar="FILE", help="numpy_peer.py JSON")
    ap.add_argument("--torch-cpu", metavar="FILE", help="torch_peer.py --device cpu JSON at --cpu's thread count")
    ap.add_argument("--torch-cpu1", metavar="FILE", help="torch_peer.py --device cpu --threads 1 JSON")
    ap.add_argument("--vulkan", metavar="FILE", help="strix-bench --backend vulkan JSON")
    ap.add_argument("--torch", metavar="FILE", help="torch_peer.py JSON")
    ap.add_argument("--out", metavar="DIR", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                    help="where tables.md and the sweep PNGs go (default: bench/results)")
    ap.add_argument("--tables", metavar="FILE", help="markdown file for the tables (default: OUT/tables.md)")
    ap.add_argument("--results-md", metavar="FILE", help="also replace the tables block of this markdown file (bench/RESULTS.md)")
    ap.add_argument("--no-plots", action="store_true", help="write the tables only")
    a = ap.parse_args()
    cpu, cpu1, npy, tc, tc1, vk, th = (load(p) for p in (a.cpu, a.cpu1, a.numpy, a.torch_cpu, a.torch_cpu1, a.vulkan, a.torch))
    if not any((cpu, cpu1, npy, tc, tc1, vk, th)):
        ap.error("give at least one JSON file (--cpu, --cpu1, --numpy, --torch-cpu, --torch-cpu1, --vulkan, --torch)")
    for doc, want in ((cpu, "cpu"), (cpu1, "cpu"), (npy, "numpy"), (tc, "torch-cpu"), (tc1, "torch-cpu"), (vk, "vulkan"), (th, "torch")):
        if doc and doc.get("backend") != want:
            print(f"report.py: {doc['_path']} says backend {doc.get('backend')!r}, expected {want!r}", file=sys.stderr)
    for doc in (cpu1, tc1):
        if doc and doc.get("threads") not in (1, None):
            print(f"report.py: {doc['_path']} ran on {doc.get('threads')} threads, not 1", file=sys.stderr)
    if tc and cpu and tc.get("threads") != cpu.get("threads"):
        print(f"report.py: {tc['_path']} ran on {tc.get('threads')} threads, {cpu['_path']} on {cpu.get('threads')}", file=sys.stderr)

    parts = []
    if vk or th:
        parts += gpu_table(vk, th) + [""]
    if cpu or cpu1 or npy or tc or tc1:
        parts += cpu_table(cpu, cpu1, npy, tc, tc1) + [""]
    pngs = []
    os.makedirs(a.out, exist_ok=True)
    if not a.no_plots:
        cpu_runs = [(short(cpu, f"strix {cpu.get('threads', 'N')} thr"), cpu) if cpu else ("", None),
                    (short(cpu1, "strix 1 thr"), cpu1) if cpu1 else ("", None), (short(npy, "NumPy"), npy) if npy else ("", None),
                    (short(tc, f"PyTorch {tc.get('threads', 'N')} thr"), tc) if tc else ("", None),
                    (short(tc1, "PyTorch 1 thr"), tc1) if tc1 else ("", None)]
        gpu_runs = [(short(vk, "strix Vulkan"), vk) if vk else ("", None), (short(th, "PyTorch"), th) if th else ("", None)]
        for name, runs, title in (("sweep-cpu.png", cpu_runs, "CPU size sweeps"), ("sweep-vulkan.png", gpu_runs, "GPU size sweeps")):
            path = os.path.join(a.out, name)
            if plot_sweeps(runs, path, title):
                pngs.append(path)
    if pngs:
        parts += ["Size sweeps: " + ", ".join(f"`{os.path.basename(p)}`" for p in pngs) + " (solid: the operator; dashed: "
                  "the copy of the same run).", ""]
    body = "\n".join(parts)
    tables = a.tables or os.path.join(a.out, "tables.md")
    with open(tables, "w") as f:
        f.write(body)
    print(tables)
    for p in pngs:
        print(p)
    if a.results_md:
        replace_block(a.results_md, body)
        print(a.results_md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
