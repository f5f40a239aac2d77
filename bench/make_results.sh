#!/usr/bin/env bash
# Regenerates the tables and plots of bench/RESULTS.md from the JSON result files in
# bench/results (needs python3-matplotlib: `bash scripts/deps.sh bench`). Usage:
#   bash bench/make_results.sh [GPU-RUN-PREFIX] [CPU-RUN-PREFIX] [CPU-PEERS-RUN-PREFIX] [EPYC-RUN-PREFIX] [ZEN4-RUN-PREFIX]
# defaults: the 2026-11-22 runs on the lent NVIDIA H200 (and its 16-thread host) and on a
# 2-core machine of CI's kind, the 2026-11-26 session with PyTorch (CPU) beside NumPy on a
# 2-core Intel Xeon of CI's kind (after the pads' prefetch; the 2026-11-25 sessions there ran
# on a loaded machine), the 2026-11-26 session on a 2-core AMD EPYC (Zen 5) of CI's kind, and the
# 2026-11-28 session on a 2-core AMD EPYC (Zen 4) of CI's kind (strix's tensors on huge pages;
# the same code on 4 KiB pages is results/2026-11-28-epyc-zen4-2core-small-*).
# A prefix P names P-vulkan.json, P-torch.json (GPU) or P-host-cpu16.json, P-host-cpu1.json,
# P-host-numpy.json; the CI-kind files are P-cpu2.json, P-cpu1.json, P-numpy.json and, where
# they exist, P-torch-cpu2.json, P-torch-cpu1.json.
set -euo pipefail
cd "$(dirname "$0")/.."
r=bench/results
gpu=${1:-$r/2026-11-22-h200}
ci=${2:-$r/2026-11-22-ci-2core}
peers=${3:-$r/2026-11-26-xeon-2core-prefetch}
epyc=${4:-$r/2026-11-26-epyc-zen5-2core}
zen4=${5:-$r/2026-11-28-epyc-zen4-2core-huge}
# PyTorch (CPU) runs of a prefix, where it has them
torch_cpu() { [ -f "$1-torch-cpu2.json" ] && echo --torch-cpu "$1-torch-cpu2.json"; [ -f "$1-torch-cpu1.json" ] && echo --torch-cpu1 "$1-torch-cpu1.json"; true; }
python3 bench/report.py --vulkan "$gpu-vulkan.json" --torch "$gpu-torch.json" \
  --cpu "$gpu-host-cpu16.json" --cpu1 "$gpu-host-cpu1.json" --numpy "$gpu-host-numpy.json" \
  --out "$r" --tables "$r/tables-h200.md"
# shellcheck disable=SC2046 # torch_cpu's words are separate arguments
python3 bench/report.py --cpu "$ci-cpu2.json" --cpu1 "$ci-cpu1.json" --numpy "$ci-numpy.json" $(torch_cpu "$ci") \
  --out "$r/ci-2core" --tables "$r/tables-ci-2core.md"
# shellcheck disable=SC2046
python3 bench/report.py --cpu "$peers-cpu2.json" --cpu1 "$peers-cpu1.json" --numpy "$peers-numpy.json" $(torch_cpu "$peers") \
  --out "$r/ci-2core-peers" --tables "$r/tables-ci-2core-peers.md"
# shellcheck disable=SC2046
python3 bench/report.py --cpu "$epyc-cpu2.json" --cpu1 "$epyc-cpu1.json" --numpy "$epyc-numpy.json" $(torch_cpu "$epyc") \
  --out "$r/epyc-2core" --tables "$r/tables-epyc-2core.md"
# shellcheck disable=SC2046
python3 bench/report.py --cpu "$zen4-cpu2.json" --cpu1 "$zen4-cpu1.json" --numpy "$zen4-numpy.json" $(torch_cpu "$zen4") \
  --out "$r/epyc-zen4-2core" --tables "$r/tables-epyc-zen4-2core.md"
# splice the five into RESULTS.md between its markers
python3 - "$r/tables-h200.md" "$r/tables-ci-2core.md" "$r/tables-ci-2core-peers.md" "$r/tables-epyc-2core.md" "$r/tables-epyc-zen4-2core.md" <<'PY'
import re, sys
h200, ci, peers, epyc, zen4 = (open(f).read().strip() for f in sys.argv[1:])
h200 = h200.replace("### CPU: strix beside NumPy", "### CPU, the H200 machine's host (16 threads): strix beside NumPy")
h200 = h200.replace("### GPU: strix (Vulkan) beside PyTorch (CUDA)", "### GPU, NVIDIA H200: strix (Vulkan) beside PyTorch (CUDA)")
ci = ci.replace("### CPU: strix beside NumPy", "### CPU, a 2-core machine of CI's kind (quick sizes): strix beside NumPy")
ci = ci.replace("`sweep-cpu.png`", "`ci-2core/sweep-cpu.png`")
peers = peers.replace("### CPU: strix beside NumPy and PyTorch",
                      "### CPU, a 2-core Intel Xeon (family 6, model 207) machine of CI's kind, 2026-11-26, pads with their partial lines prefetched (quick sizes): strix beside NumPy and PyTorch")
peers = peers.replace("### CPU: strix beside NumPy", "### CPU, a 2-core Intel Xeon (family 6, model 207) machine of CI's kind, 2026-11-26 (quick sizes): strix beside NumPy")
peers = peers.replace("`sweep-cpu.png`", "`ci-2core-peers/sweep-cpu.png`")
epyc = epyc.replace("### CPU: strix beside NumPy and PyTorch",
                    "### CPU, a 2-core AMD EPYC (Zen 5) machine of CI's kind, 2026-11-26 (quick sizes): strix beside NumPy and PyTorch")
epyc = epyc.replace("`sweep-cpu.png`", "`epyc-2core/sweep-cpu.png`")
zen4 = zen4.replace("### CPU: strix beside NumPy and PyTorch",
                    "### CPU, a 2-core AMD EPYC (Zen 4) machine of CI's kind, 2026-11-28, strix's tensors on huge pages (quick sizes): strix beside NumPy and PyTorch")
zen4 = zen4.replace("`sweep-cpu.png`", "`epyc-zen4-2core/sweep-cpu.png`")
body = h200 + "\n\n" + ci + "\n\n" + peers + "\n\n" + epyc + "\n\n" + zen4
path = "bench/RESULTS.md"
text = open(path).read()
begin, end = "<!-- tables:begin -->", "<!-- tables:end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:i] + "\n" + body + "\n" + text[j:])
PY
echo "updated bench/RESULTS.md, $r/sweep-*.png, $r/ci-2core/sweep-cpu.png, $r/ci-2core-peers/sweep-cpu.png, $r/epyc-2core/sweep-cpu.png, $r/epyc-zen4-2core/sweep-cpu.png"
