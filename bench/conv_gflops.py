#!/usr/bin/env python3
"""GFLOP/s of the convolutions graphrt runs on oneDNN, per corpus model.

How: runs `graphrt bench --threads 1` twice per model: once plain (median
Run time), once with oneDNN's own per-primitive timer on (DNNL_VERBOSE=1
prints every execution's shape and milliseconds). FLOPs come from the
printed shapes: 2 * N * OC * OH * OW * (IC / G) * KH * KW per convolution
(a deconvolution scatters each input pixel: 2 * N * IC * IH * IW *
(OC / G) * KH * KW). Reported per model: FLOPs per Run, GFLOP/s over the
convolutions' own time (the first Run left out), GFLOP/s over the whole
Run's median time, both as a share of the peak given with --peak
(//bench:peak_flops). Convolutions that oneDNN
declines (then XNNPACK or the portable path runs them) are not counted:
the script prints how many of the model's convolution executions it saw.

  python3 bench/conv_gflops.py --peak 238 blazepose-heavy movenet-thunder
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HOME = os.path.expanduser("~")
# oneDNN's shape string, e.g. "g24mb1_ic24oc24_ih64oh64kh5sh1dh0ph2_iw64..."
# (the group count "g24" only for grouped / depthwise convolutions).
DESC = re.compile(
    r"(?:g(\d+))?mb(\d+)_ic(\d+)oc(\d+)_ih(\d+)oh(\d+)kh(\d+)\S*?"
    r"_iw(\d+)ow(\d+)kw(\d+)")


def flops(kind, desc):
    m = DESC.search(desc)
    if not m:
        return None
    g, n, ic, oc, ih, oh, kh, iw, ow, kw = (
        int(v) if v else 1 for v in m.groups())
    if kind == "deconvolution":
        return 2.0 * n * ic * ih * iw * (oc // g) * kh * kw
    return 2.0 * n * oc * oh * ow * (ic // g) * kh * kw


def bench(graphrt, model, inputs, iters, env=None):
    cmd = [graphrt, "bench", model, "--inputs", inputs, "--threads", "1",
           "--iters", str(iters), "--warmup", "2"]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})), check=True)
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--graphrt", default="bazel-bin/tools/graphrt")
    ap.add_argument("--models-dir", default=os.path.join(
        HOME, ".cache/graphrt/human-models/models"))
    ap.add_argument("--inputs-dir", default=os.path.join(
        HOME, ".cache/graphrt/corpus-goldens"))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--peak", type=float, default=0.0,
                    help="FP32 GFLOP/s per core (//bench:peak_flops)")
    a = ap.parse_args()
    print("| model | GFLOP per Run | conv executions | conv ms | Run ms "
          "| conv GFLOP/s | Run GFLOP/s | conv % of peak | Run % of peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in a.models:
        model = os.path.join(a.models_dir, name + ".json")
        inputs = os.path.join(a.inputs_dir, name + ".json")
        run_ms = json.loads(bench(a.graphrt, model, inputs, a.iters).stdout)[
            "median_ms"]
        runs = 1 + 2 + a.iters  # first Run + warmup + timed
        p = bench(a.graphrt, model, inputs, a.iters, {"DNNL_VERBOSE": "1"})
        execs = []
        for line in p.stdout.splitlines() + p.stderr.splitlines():
            f = line.split(",")
            if len(f) < 6 or not f[0].endswith("verbose") or f[1] != "exec":
                continue
            if f[3] not in ("convolution", "deconvolution"):
                continue
            fl = flops(f[3], f[-2])
            if fl is None:
                continue
            execs.append((fl, float(f[-1])))
        if not execs:
            print(f"| {name} | no oneDNN convolutions | | | | | | | |")
            continue
        # The first Run's executions (cold caches, first touch) are left out.
        per_run = len(execs) // runs
        timed = execs[per_run:]
        gflop = sum(f for f, _ in timed) / (runs - 1) / 1e9
        conv_ms = sum(t for _, t in timed) / (runs - 1)
        count = per_run * runs
        conv_gfs = gflop / (conv_ms / 1e3)
        run_gfs = gflop / (run_ms / 1e3)
        pk = (lambda v: f"{100 * v / a.peak:.0f}%") if a.peak else (
            lambda v: "")
        print(f"| {name} | {gflop:.2f} | {count // runs} | {conv_ms:.2f} | "
              f"{run_ms:.2f} | {conv_gfs:.0f} | {run_gfs:.0f} | {pk(conv_gfs)} "
              f"| {pk(run_gfs)} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
