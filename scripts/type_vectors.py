#!/usr/bin/env python3
"""Reference vectors for strix's bfloat16, bool and float8 element types, made by others' code.

    python3 scripts/type_vectors.py OUT_DIR

Run on a machine with PyTorch (2.1 or later: float8 types), ml_dtypes, ONNX (1.15 or later)
and onnxruntime; strix's own code takes no part. It writes into OUT_DIR:

conversions, as PyTorch computes them on the CPU (torch.Tensor.to), raw bits, little-endian:
  bfloat16_to_float32.npy        <u4[65536]  every bfloat16 pattern, widened
  float32_to_bfloat16.npy        <u2[65536,3] the float32 patterns (p << 16) | low for every p
                                             and low in (0x7fff, 0x8000, 0x8001): the inputs
                                             just below, at and above every rounding boundary
  float8_e4m3fn_to_float32.npy   <u4[256]    (and float8_e5m2_to_float32.npy)
  float32_to_float8_e4m3fn_in.npy  <u4[N]    every (p << 16), then each midpoint between two
                                             neighbouring finite values and the float32 values
                                             on either side of it (and past the largest)
  float32_to_float8_e4m3fn.npy   <u1[N]      what PyTorch makes of them (and the same for e5m2)
scatter reductions, PyTorch's scatter_reduce on the CPU (one thread, include_self=True):
  reduce_<type>_{input,index,src}.npy and reduce_<type>_<sum|prod|amax|amin>.npy
  for bool and bfloat16 (bfloat16 as <u2 bits)
ONNX (onnx.reference's ReferenceEvaluator, and onnxruntime where it takes the type):
  onnx/<case>/node.pb (the NodeProto), in<k>.npy, out<k>.npy (raw bits: <u2 for bfloat16,
  |u1 for the float8 types, |b1 for bool), types.txt (one element type per line: inputs, then
  outputs), agree.txt (whether onnxruntime gave the same bits, or why it was not asked)
and npy_descr.txt: the header np.save writes for an ml_dtypes array of each type.
"""

import io
import os
import sys

import numpy as np


def save(out, name, a):
    np.save(os.path.join(out, name), np.ascontiguousarray(a))


def conversions(out, torch):
    torch.set_num_threads(1)
    p = np.arange(65536, dtype=np.uint32)
    bf = torch.from_numpy(p.astype(np.uint16).view(np.int16)).view(torch.bfloat16)
    save(out, "bfloat16_to_float32.npy", bf.float().numpy().view(np.uint32))
    lows = np.array([0x7FFF, 0x8000, 0x8001], dtype=np.uint32)
    x = ((p[:, None] << 16) | lows[None, :]).astype(np.uint32)
    f = torch.from_numpy(x.view(np.float32).copy())
    save(out, "float32_to_bfloat16.npy", f.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16))
    for name, t in (("float8_e4m3fn", torch.float8_e4m3fn), ("float8_e5m2", torch.float8_e5m2)):
        b = torch.from_numpy(np.arange(256, dtype=np.uint8)).view(t)
        wide = b.float().numpy()
        save(out, f"{name}_to_float32.npy", wide.view(np.uint32))
        finite = np.unique(wide[np.isfinite(wide)].astype(np.float64))
        mids = (finite[:-1] + finite[1:]) / 2
        top = finite[-1] + (finite[-1] - finite[-2]) / 2  # half a step past the largest
        mids = np.concatenate([mids, [top, -top]]).astype(np.float32)
        near = np.concatenate([mids, np.nextafter(mids, np.float32(np.inf)), np.nextafter(mids, np.float32(-np.inf))])
        inputs = np.concatenate([(p << 16).astype(np.uint32), near.view(np.uint32)])
        save(out, f"float32_to_{name}_in.npy", inputs)
        got = torch.from_numpy(inputs.view(np.float32).copy()).to(t).view(torch.uint8).numpy()
        save(out, f"float32_to_{name}.npy", got)


def reductions(out, torch):
    g = np.random.default_rng(0x44)
    for name in ("bool", "bfloat16"):
        n, m = 64, 1000
        index = g.integers(0, n, m).astype(np.int64)
        if name == "bool":
            inp = g.integers(0, 2, n).astype(np.bool_)
            src = g.integers(0, 2, m).astype(np.bool_)
            ti, ts = torch.from_numpy(inp), torch.from_numpy(src)
            keep = lambda r: r.numpy()
            save(out, "reduce_bool_input.npy", inp)
            save(out, "reduce_bool_src.npy", src)
        else:
            # finite values of a few magnitudes (products stay finite for a while, then overflow)
            vals = (g.standard_normal(n + m) * np.exp2(g.integers(-4, 5, n + m))).astype(np.float32)
            bits = (torch.from_numpy(vals).to(torch.bfloat16)).view(torch.int16).numpy().view(np.uint16)
            ti = torch.from_numpy(bits[:n].view(np.int16).copy()).view(torch.bfloat16)
            ts = torch.from_numpy(bits[n:].view(np.int16).copy()).view(torch.bfloat16)
            keep = lambda r: r.view(torch.int16).numpy().view(np.uint16)
            save(out, "reduce_bfloat16_input.npy", bits[:n])
            save(out, "reduce_bfloat16_src.npy", bits[n:])
        save(out, f"reduce_{name}_index.npy", index)
        for red in ("sum", "prod", "amax", "amin"):
            r = ti.scatter_reduce(0, torch.from_numpy(index), ts, red, include_self=True)
            save(out, f"reduce_{name}_{red}.npy", keep(r))


def raw(a, tname):
    """The array's bits as NumPy can store them without ml_dtypes."""
    a = np.asarray(a)
    if tname == "bool":
        return a.astype(np.bool_)
    if tname == "bfloat16":
        return a.view(np.uint16)
    if tname.startswith("float8"):
        return a.view(np.uint8)
    return a


def onnx_cases(out):
    import ml_dtypes
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    np_of = {"bfloat16": ml_dtypes.bfloat16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
             "float8_e5m2": ml_dtypes.float8_e5m2, "bool": np.bool_, "int64": np.int64, "int32": np.int32}
    onnx_of = {"bfloat16": TensorProto.BFLOAT16, "float8_e4m3fn": TensorProto.FLOAT8E4M3FN,
               "float8_e5m2": TensorProto.FLOAT8E5M2, "bool": TensorProto.BOOL,
               "int64": TensorProto.INT64, "int32": TensorProto.INT32}
    g = np.random.default_rng(0x0E)

    def data(tname, shape):
        if tname == "bool":
            return g.integers(0, 2, shape).astype(np.bool_)
        v = (g.standard_normal(shape) * 4).astype(np.float32)
        return v.astype(np_of[tname])

    cases = []
    for t in ("bfloat16", "bool", "float8_e4m3fn", "float8_e5m2"):
        x = data(t, (3, 4, 5))
        cases.append((f"gather_axis1_{t}", "Gather", {"axis": 1}, [x, np.array([[0, 3], [-1, 2]], np.int64)], [t, "int64"]))
        cases.append((f"gatherelements_axis2_{t}", "GatherElements", {"axis": 2}, [x, g.integers(-5, 5, (3, 4, 2)).astype(np.int64)], [t, "int64"]))
        cases.append((f"gathernd_{t}", "GatherND", {}, [x, np.array([[0, 1], [2, -1]], np.int64)], [t, "int64"]))
        cases.append((f"concat_axis0_{t}", "Concat", {"axis": 0}, [x, data(t, (2, 4, 5))], [t, t]))
        cases.append((f"split_axis2_{t}", "Split", {"axis": 2, "num_outputs": 2}, [x], [t]))
        starts, ends, axes = np.array([0, 1], np.int64), np.array([3, 5], np.int64), np.array([0, 2], np.int64)
        cases.append((f"slice_{t}", "Slice", {}, [x, starts, ends, axes], [t, "int64", "int64", "int64"]))
        upd = data(t, (3, 4, 2))
        idx = np.stack([g.permutation(5)[:2] for _ in range(12)]).reshape(3, 4, 2).astype(np.int64)
        cases.append((f"scatterelements_axis2_{t}", "ScatterElements", {"axis": 2}, [x, idx, upd], [t, "int64", t]))
        cases.append((f"scatternd_{t}", "ScatterND", {}, [x, np.array([[2], [0]], np.int64), data(t, (2, 4, 5))], [t, "int64", t]))
        pads = np.array([0, 1, 2, 1, 0, 1], np.int64)
        for mode in ("constant", "reflect", "edge", "wrap"):
            ins, types = [x, pads], [t, "int64"]
            if mode == "constant" and t != "bool":
                ins.append(np.array(1.5, np_of[t]))
                types.append(t)
            cases.append((f"pad_{mode}_{t}", "Pad", {"mode": mode}, ins, types))
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    for name, op, attrs, ins, types in cases:
        in_names = [f"in{k}" for k in range(len(ins))]
        n_out = 2 if op == "Split" else 1
        out_names = [f"out{k}" for k in range(n_out)]
        node = helper.make_node(op, in_names, out_names, **attrs)
        graph = helper.make_graph([node], name, [helper.make_tensor_value_info(n, onnx_of[t], a.shape) for n, t, a in zip(in_names, types, ins)],
                                  [helper.make_tensor_value_info(n, onnx_of[types[0]], None) for n in out_names])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        model.ir_version = 10  # (what onnxruntime 1.30 reads; make_model writes the newest)
        feeds = dict(zip(in_names, ins))
        try:
            got = ReferenceEvaluator(model).run(None, feeds)
        except Exception as e:
            print(name, "| the reference evaluator failed:", str(e).splitlines()[0][:300])
            continue
        agree = "onnxruntime not present"
        if ort is not None:
            try:
                sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
                rt = sess.run(None, feeds)
                same = all(raw(a, types[0]).tobytes() == raw(b, types[0]).tobytes() and np.shape(a) == np.shape(b) for a, b in zip(got, rt))
                agree = "onnxruntime agrees" if same else "onnxruntime DIFFERS"
            except Exception as e:  # a type or mode it does not implement
                agree = "onnxruntime could not run it: " + str(e).splitlines()[0][:200]
        d = os.path.join(out, "onnx", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "node.pb"), "wb") as f:
            f.write(node.SerializeToString())
        for k, (a, t) in enumerate(zip(ins, types)):
            save(d, f"in{k}.npy", raw(a, t))
        for k, a in enumerate(got):
            save(d, f"out{k}.npy", raw(a, types[0]))
        with open(os.path.join(d, "types.txt"), "w") as f:
            f.write("\n".join(types + [types[0]] * n_out) + "\n")
        with open(os.path.join(d, "agree.txt"), "w") as f:
            f.write(agree + "\n")
        print(name, "|", agree)


def npy_descr(out):
    import ml_dtypes
    lines = []
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "bool"):
        buf = io.BytesIO()
        np.save(buf, np.zeros(3, np.bool_ if name == "bool" else getattr(ml_dtypes, name)))
        header = buf.getvalue()[:128].split(b"\n")[0]
        lines.append(f"{name}: {header[10:].decode('latin1').strip()}")
        buf.seek(0)
        try:
            lines.append(f"  np.load gives {np.load(buf, allow_pickle=False).dtype!r}")
        except Exception as e:
            lines.append(f"  np.load fails: {e}")
    with open(os.path.join(out, "npy_descr.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    import torch
    print("torch", torch.__version__, "numpy", np.__version__)
    try:
        npy_descr(out)
    except Exception as e:
        print("npy_descr failed:", e)
    conversions(out, torch)
    reductions(out, torch)
    import onnx
    print("onnx", onnx.__version__)
    onnx_cases(out)


if __name__ == "__main__":
    main()
