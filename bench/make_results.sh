#!/usr/bin/env bash
# Regenerates the tables and plots of bench/RESULTS.md from the JSON result files in
# bench/results (needs python3-matplotlib: `bash scripts/deps.sh bench`). Usage:
#   bash bench/make_results.sh [GPU-RUN-PREFIX] [CPU-RUN-PREFIX]
# defaults: the 2026-11-22 runs on the lent NVIDIA H200 (and its 16-thread host) and on a
# 2-core machine of CI's kind. A prefix P names P-vulkan.json, P-torch.json (GPU) or
# P-host-cpu16.json, P-host-cpu1.json, P-host-numpy.json; the CI-kind files are P-ci-2core-*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
r=bench/results
gpu=${1:-$r/2026-11-22-h200}
ci=${2:-$r/2026-11-22-ci-2core}
python3 bench/report.py --vulkan "$gpu-vulkan.json" --torch "$gpu-torch.json" \
  --cpu "$gpu-host-cpu16.json" --cpu1 "$gpu-host-cpu1.json" --numpy "$gpu-host-numpy.json" \
  --out "$r" --tables "$r/tables-h200.md"
python3 bench/report.py --cpu "$ci-cpu2.json" --cpu1 "$ci-cpu1.json" --numpy "$ci-numpy.json" \
  --out "$r/ci-2core" --tables "$r/tables-ci-2core.md"
# splice both into RESULTS.md between its markers
python3 - "$r/tables-h200.md" "$r/tables-ci-2core.md" <<'PY'
import re, sys
h200, ci = (open(f).read().strip() for f in sys.argv[1:])
h200 = h200.replace("### CPU: strix beside NumPy", "### CPU, the H200 machine's host (16 threads): strix beside NumPy")
h200 = h200.replace("### GPU: strix (Vulkan) beside PyTorch (CUDA)", "### GPU, NVIDIA H200: strix (Vulkan) beside PyTorch (CUDA)")
ci = ci.replace("### CPU: strix beside NumPy", "### CPU, a 2-core machine of CI's kind (quick sizes): strix beside NumPy")
ci = ci.replace("`sweep-cpu.png`", "`ci-2core/sweep-cpu.png`")
body = h200 + "\n\n" + ci
path = "bench/RESULTS.md"
text = open(path).read()
begin, end = "<!-- tables:begin -->", "<!-- tables:end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:i] + "\n" + body + "\n" + text[j:])
PY
echo "updated bench/RESULTS.md, $r/sweep-*.png, $r/ci-2core/sweep-cpu.png"
