#!/usr/bin/env python3
"""GFLOP/s of a corpus model's convolutions and of its whole Run.

How: runs `graphrt bench --threads 1` twice per model: once plain (median
Run time) and once with `--profile`, whose per-op table gives each op's
milliseconds and GFLOP/s per Run (FLOPs counted by the kernels
themselves: 2 * N * OH * OW * OC * IC / G * KH * KW per convolution,
a fused depthwise block's three stages included). Convolutions are the ops
whose name holds "Conv" and `_FusedDepthwiseBlock`, whichever backend ran
them (oneDNN, the direct kernel, XNNPACK, Eigen). Reported per model:
convolution GFLOP per Run, their GFLOP/s over their own time, the same
FLOPs over the plain Run's median time, and both as a share of the peak
given with --peak (//bench:peak_flops); "all counted" is the profiler's
rate for every op it counts FLOPs for (MatMul, pooling, ...), over the
profiled Run.

  python3 bench/conv_gflops.py --peak 238 blazepose-heavy movenet-thunder
"""
import argparse
import json
import os
import re
import subprocess
import sys

HOME = os.path.expanduser("~")
ALL_COUNTED = re.compile(r"all counted FLOPs over the whole Run: ([0-9.]+)")


def bench(graphrt, model, inputs, iters, profile):
    cmd = [graphrt, "bench", model, "--inputs", inputs, "--threads", "1",
           "--iters", str(iters), "--warmup", "2"]
    if profile:
        cmd.append("--profile")
    return subprocess.run(cmd, capture_output=True, text=True, check=True)


def conv_rows(profile_text):
    """(ms per Run, GFLOP/s) of each convolution op in the per-op table."""
    rows, in_table = [], False
    for line in profile_text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "op" and "GFLOP/s" in f:
            in_table = True
            continue
        if line.startswith("all counted"):
            break
        if not in_table or len(f) < 6:
            continue
        if "Conv" in f[0] or f[0] == "_FusedDepthwiseBlock":
            rows.append((float(f[3]), float(f[5])))
    return rows


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
    print("| model | conv GFLOP per Run | conv ms | Run ms | conv GFLOP/s "
          "| Run GFLOP/s | all counted GFLOP/s | conv % of peak "
          "| Run % of peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    pk = (lambda v: f"{100 * v / a.peak:.0f}%") if a.peak else (lambda v: "")
    for name in a.models:
        model = os.path.join(a.models_dir, name + ".json")
        inputs = os.path.join(a.inputs_dir, name + ".json")
        run_ms = json.loads(
            bench(a.graphrt, model, inputs, a.iters, False).stdout)[
                "median_ms"]
        prof = bench(a.graphrt, model, inputs, a.iters, True).stderr
        rows = conv_rows(prof)
        if not rows:
            print(f"| {name} | no convolutions | | | | | | | |")
            continue
        conv_ms = sum(ms for ms, _ in rows)
        gflop = sum(ms * gfs for ms, gfs in rows) / 1e3
        conv_gfs = gflop / (conv_ms / 1e3)
        run_gfs = gflop / (run_ms / 1e3)
        m = ALL_COUNTED.search(prof)
        all_gfs = m.group(1) if m else ""
        print(f"| {name} | {gflop:.2f} | {conv_ms:.2f} | {run_ms:.2f} | "
              f"{conv_gfs:.0f} | {run_gfs:.0f} | {all_gfs} | {pk(conv_gfs)} "
              f"| {pk(run_gfs)} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
