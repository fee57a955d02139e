#!/usr/bin/env bash
# The registration table across conditions of docs/registration.md, "Across conditions":
# simulates realistic-preset scans (decal stickers, TrueDepth-like noise, dropouts, holes, blur)
# under one changed condition each — recording length and rate, depth scale, stated focal
# length, sticker size and camera distance, depth noise, partial sweeps — then runs
# `headscan reconstruct --json` (the marker map) and `headscan measure --json` (default options)
# on each and compares them with the simulator's truth. Prints a line a scan: markers mapped of
# those detected, the map's corners against the true ones after the best similarity (RMS, and
# the similarity's scale less 1: the scale error left after the stickers' scale where applied),
# the focal-length check's estimate against what it measures (the true focal length times the
# depth's and the print's scale) and whether its 95 % interval holds it, whether the stickers'
# scale was applied, frames placed, the CVAI and circumference errors, the severity and the
# verdict.
# Usage: scripts/conditions-study.sh [WORKDIR]
#   (16 scans, 2 at a time: about 6 minutes on two cores; scans done in WORKDIR are not
#    redone; each scan is deleted once measured)
# shellcheck source=scripts/study-setup.sh
source "$(dirname "$0")/study-setup.sh" "$@"

base="--preset realistic --cvai 7 --ci 84"
list=(
  "full-600|--frames 600 --seed 400"
  "short-120|--frames 120 --seed 401"
  "sparse-50-at-2fps|--frames 50 --fps 2 --seed 402"
  "depth+1%|--frames 120 --seed 403 --depth-scale-error=0.01"
  "depth-1%|--frames 120 --seed 404 --depth-scale-error=-0.01"
  "sparse-depth+1%|--frames 50 --fps 2 --seed 405 --depth-scale-error=0.01"
  "focal+8%|--frames 120 --seed 406 --focal-error=0.08"
  "focal-8%|--frames 120 --seed 407 --focal-error=-0.08"
  "stickers-10mm-near|--frames 120 --seed 408 --marker-side 10 --distance-range 0.2:0.26"
  "stickers-12mm|--frames 120 --seed 409 --marker-side 12"
  "stickers-10mm-far|--frames 120 --seed 410 --marker-side 10 --distance-range 0.32:0.45"
  "noise-0.2mm|--frames 120 --seed 411 --depth-noise 0.2"
  "noise-0.8mm|--frames 120 --seed 412 --depth-noise 0.8"
  "sweep-60%|--frames 120 --seed 413 --coverage 0.6"
  "sweep-75%-600|--frames 600 --seed 414 --coverage 0.75"
  "sweep-60%-depth+1%|--frames 300 --seed 415 --coverage 0.6 --depth-scale-error=0.01"
)

one() {
  local name=$1 options=$2
  simulate_scan "$name" "$options" || return 0
  "$bin" reconstruct "$work/$name.rgbdscan" -o "$work/$name.ply" --json "$work/$name-reconstruct.json" -q --jobs 1 >/dev/null 2>"$work/$name-reconstruct.err" || true
  "$bin" measure "$work/$name.rgbdscan" --json "$work/$name-measure.json" -q --jobs 1 >/dev/null 2>"$work/$name-measure.err" || true
  scan_done "$name"
}

# Two scans at a time, one worker thread each.
run_list

python3 - "$work" "$PWD/scripts" <<'PY'
import json, os, sys
import numpy as np
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from study_tables import option, verdict_cell
def load(path):
    return json.load(open(path)) if os.path.exists(path) else None
def similarity(src, dst):
    ms, md = src.mean(0), dst.mean(0)
    a, b = src - ms, dst - md
    u, s, vt = np.linalg.svd(b.T @ a)
    d = np.eye(3); d[2, 2] = np.sign(np.linalg.det(u @ vt))
    scale = (s * np.diag(d)).sum() / (a ** 2).sum()
    residual = dst - (scale * ((u @ d @ vt) @ a.T).T + md)
    return np.sqrt((residual ** 2).sum(1).mean()), scale
print("| scan | conditions | markers mapped | map RMS | map scale | f·s estimate | 95 % holds | stickers' scale | frames placed | ΔCVAI | ΔHC | severity | verdict |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for line in open(f"{work}/conditions.txt").read().strip().split("\n"):
    name, options = line.split("|")
    truth = load(f"{work}/{name}-truth.json")
    rec, mea = load(f"{work}/{name}-reconstruct.json"), load(f"{work}/{name}-measure.json")
    if rec is None:
        error = open(f"{work}/{name}-reconstruct.err").read().strip().split("\n")[-1]
        print(f"| {name} | {options} | reconstruct refused: {error.replace('|', '/')} | | | | | | | | | | |")
        continue
    corners = {m["id"]: np.array(m["corners"]) for m in truth["markers"]}
    src = np.concatenate([corners[m["id"]] for m in rec["markerMap"]])
    dst = np.concatenate([np.array(m["corners"]) for m in rec["markerMap"]])
    rms, scale = similarity(src, dst)
    c = truth["conditions"]
    measured = (1 + c["depthScaleError"]) * (1 + c["printedSideError"]) * c["renderedIntrinsics"]["fx"]
    check = rec.get("intrinsicsCheck")
    if check:
        est, u = check["focalLengthEstimate"], check["focalLengthUncertainty"]
        focal = f"{100 * (est / measured - 1):+.2f} % ± {100 * u / est:.2f}"
        holds = "yes" if abs(est - measured) <= 1.96 * u else "no"
    else:
        focal, holds = "no check", ""
    applied = "applied" if rec.get("scale", {}).get("applied") else "kept"
    cells = [f"{rec['markersRegistered']} of {rec['markers']}", f"{rms * 1000:.2f} mm", f"{100 * (scale - 1):+.2f} %", focal, holds, applied,
             f"{rec['framesRegistered']} of {rec['frames']}"]
    if mea is None:
        error = open(f"{work}/{name}-measure.err").read().strip().split("\n")[-1]
        cells += [f"measure refused: {error.split(': ', 2)[-1].replace('|', '/')}", "", "", ""]
    else:
        t = truth["measures"]
        cells += [f"{mea['cvai'] - t['cvai']:+.2f}", f"{mea['circumference'] - t['circumference']:+.2f} mm",
                  "right" if mea["severity"] == t["severity"] else "WRONG", verdict_cell(mea)]
    print(f"| {name} | {options} | " + " | ".join(cells) + " |")
PY
