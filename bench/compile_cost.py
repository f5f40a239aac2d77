#!/usr/bin/env python3
"""What including strix costs a program's build: wall time and peak memory of the compiler for
one translation unit, best of N, beside the same figures for a file that includes only
<ranges> (a standard header of comparable weight), measured side by side in one run.

    python3 bench/compile_cost.py [--build BUILD] [--cxx g++] [--runs 3] [--tool] [--json FILE]

Cases (g++ -std=c++20 -O2 unless said):
  <ranges>          #include <ranges>, empty main (the yardstick)
  strix.hpp         #include <strix/strix.hpp>, empty main
  vulkan.hpp        #include <strix/vulkan.hpp>, empty main
  embedding_lookup  examples/embedding_lookup.cpp: the typed API with static shapes and Vulkan
  sparse_update     examples/sparse_update.cpp: scatter with reductions, CPU and Vulkan
  backend source    backends/vulkan/volk_implementation.cpp: volk's loader and the backend's
                    implementation, compiled once per program (the Meson dependency adds it)
  tool              examples/strix.cpp at -O3 (with --tool: about a minute a run)

BUILD is a configured build with the Vulkan backend, for its generated SPIR-V headers (default
build/). Ratios are to <ranges>; the compile-cost targets are strix.hpp <= 3x and vulkan.hpp <= 4x.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_run(cmd):
    """Wall seconds and peak resident MB of one compiler run (in a fresh child process, so that
    RUSAGE_CHILDREN's maximum is this run's)."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "dt = time.perf_counter() - t\n"
        "if r.returncode: sys.stderr.write(r.stderr); sys.exit(r.returncode)\n"
        "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit("compile failed: " + " ".join(cmd) + "\n" + out.stderr[-3000:])
    secs, mb = out.stdout.split()
    return float(secs), float(mb)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tool", action="store_true", help="also compile the strix tool at -O3 (slow)")
    ap.add_argument("--json")
    a = ap.parse_args()
    spirv = os.path.join(a.build, "backends", "vulkan")
    if not os.path.exists(os.path.join(spirv, "strix", "vulkan", "spirv", "variants.h")):
        raise SystemExit(f"{a.build} has no generated SPIR-V headers: configure and build the Vulkan backend there first")
    inc = ["-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "backends", "vulkan"), "-I" + spirv, "-I" + os.path.join(ROOT, "examples")]
    tmp = tempfile.mkdtemp()

    def source(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    core = [a.cxx, "-std=c++20", "-c", "-o", os.devnull] + inc
    # a program with the Vulkan backend compiles the CPU kernels once, in the backend's source
    # file (the Meson dependency and the CMake target define STRIX_SEPARATE_KERNELS)
    base = core + ["-DSTRIX_HAVE_VULKAN=1", "-DSTRIX_SEPARATE_KERNELS"]
    cases = [
        ("<ranges>", base + ["-O2", source("ranges.cpp", "#include <ranges>\nint main() {}\n")]),
        ("strix.hpp", core + ["-O2", source("strix.cpp", "#include <strix/strix.hpp>\nint main() {}\n")]),
        ("vulkan.hpp", base + ["-O2", source("vulkan.cpp", "#include <strix/vulkan.hpp>\nint main() {}\n")]),
        ("embedding_lookup", base + ["-O2", os.path.join(ROOT, "examples", "embedding_lookup.cpp")]),
        ("sparse_update", base + ["-O2", os.path.join(ROOT, "examples", "sparse_update.cpp")]),
        # the backend's one source file: compiled once per program, not per file
        ("backend source (once)", base + ["-O2", os.path.join(ROOT, "backends", "vulkan", "volk_implementation.cpp")]),
    ]
    if a.tool:
        cases.append(("tool (-O3)", base + ["-O3", os.path.join(ROOT, "examples", "strix.cpp")]))
    version = subprocess.run([a.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"{version}; best of {a.runs} ({'1 for the tool' if a.tool else 'no tool'}), cases in turns")
    best = {name: (float("inf"), float("inf")) for name, _ in cases}
    for r in range(a.runs):
        for name, cmd in cases:
            if name.startswith("tool") and r > 0:
                continue
            s, mb = one_run(cmd)
            best[name] = (min(best[name][0], s), min(best[name][1], mb))
    ref_s, ref_mb = best["<ranges>"]
    rows = []
    for name, _ in cases:
        s, mb = best[name]
        rows.append({"case": name, "seconds": round(s, 3), "peak_mb": round(mb, 1), "time_ratio": round(s / ref_s, 2), "memory_ratio": round(mb / ref_mb, 2)})
        print(f"{name:18s} {s:7.2f} s  {mb:7.0f} MB   {s / ref_s:5.2f}x time  {mb / ref_mb:5.2f}x memory of <ranges>")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"compiler": version, "runs": a.runs, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
