"""PyTorch's side of bench/host_path.cpp, on the same GPU: what a program that calls and waits sees.

Rows (wall-clock medians, no warm-up unless the row says so):
  round trip   y.copy_(x); torch.cuda.synchronize() on 4 KiB
  sync pad     F.pad(img, (3, 3, 3, 3)); torch.cuda.synchronize(), 100 calls, each waited for
  pad kernel   the same pad timed by triton's do_bench (warmed up, the GPU kept busy)

  python3 bench/torch_host_path.py [--pad-shape 16,64,256,256] [--json FILE]
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F


def median_us(times):
    return statistics.median(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pad-shape", default="16,64,256,256")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--json")
    ap.add_argument("--transfer-mib", type=int, default=1024)
    a = ap.parse_args()
    dev = torch.device("cuda")
    print("device:", torch.cuda.get_device_name(dev))
    rows = []
    x = torch.zeros(1024, dtype=torch.float32, device=dev)
    y = torch.empty_like(x)
    t = []
    for _ in range(a.calls):
        t0 = time.perf_counter()
        y.copy_(x)
        torch.cuda.synchronize()
        t.append(time.perf_counter() - t0)
    rows.append({"name": "torch round trip: 4 KiB copy_ + synchronize", "median_us": median_us(t), "first_us": t[0] * 1e6})
    shape = [int(s) for s in a.pad_shape.split(",")]
    img = torch.zeros(shape, dtype=torch.float32, device=dev)
    torch.cuda.synchronize()
    t = []
    for _ in range(100):
        t0 = time.perf_counter()
        F.pad(img, (3, 3, 3, 3))
        torch.cuda.synchronize()
        t.append(time.perf_counter() - t0)
    rows.append({"name": f"torch sync pad {shape} float32: wall per call", "median_us": median_us(t), "first_us": t[0] * 1e6})
    try:
        from triton.testing import do_bench
        ms = do_bench(lambda: F.pad(img, (3, 3, 3, 3)), return_mode="median")
        rows.append({"name": f"torch pad {shape} float32: kernel (do_bench, warmed)", "median_us": ms * 1e3, "first_us": 0.0})
    except ImportError:
        pass
    # transfers between ordinary (pageable) host memory and the GPU, as host_path measures strix's
    if a.transfer_mib > 0:
        n = a.transfer_mib * (1 << 20) // 4
        host = torch.arange(n, dtype=torch.float32) % 1000
        gpu = torch.empty(n, dtype=torch.float32, device=dev)
        up, down = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            gpu.copy_(host)
            torch.cuda.synchronize()
            up.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            host.copy_(gpu)
            torch.cuda.synchronize()
            down.append(time.perf_counter() - t0)
        mib = f"{a.transfer_mib} MiB"
        rows.append({"name": f"torch upload {mib} (copy_ from pageable memory)", "median_us": median_us(up), "first_us": up[0] * 1e6})
        rows.append({"name": f"torch download {mib} (copy_ to pageable memory)", "median_us": median_us(down), "first_us": down[0] * 1e6})
        for r in rows[-2:]:
            print(f"{r['name']:64s} {n * 4 / (r['median_us'] * 1e-6) / 1e9:8.2f} GB/s")
    for r in rows:
        print(f"{r['name']:64s} median {r['median_us']:10.1f} us   first {r['first_us']:10.1f} us")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(dev), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
