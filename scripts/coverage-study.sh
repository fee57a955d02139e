#!/usr/bin/env bash
# The interval coverage study of docs/intervals.md, "Coverage": two sets of 20 realistic-preset
# scans of 150 frames (seeds 101–120, the calibration set, and 201–220, a fresh one), σ₂₀ =
# 0.2–1.0 mm four scans at a time, the k-th of each four with CVAI 0/4/8/2, CI 80/82/85/92 and
# the flattening right/left/right/left. Measures each with `headscan measure --json` (its
# simulated landmarks) and prints, per set, how many of the 20 intervals hold the exact measure
# with the median half-width, then the misses (error / half-width) and the mean and standard
# deviation of the CVAI and CI errors over all 40 scans.
# Usage: scripts/coverage-study.sh [WORKDIR]
#   (40 scans, 2 at a time: about 10 minutes on two cores; scans done in WORKDIR are not
#    redone; each scan is deleted once measured)
# shellcheck source=scripts/study-setup.sh
source "$(dirname "$0")/study-setup.sh" "$@"

base="--preset realistic --frames 150"
noise=(0.2 0.4 0.6 0.8 1.0) cvai=(0 4 8 2) ci=(80 82 85 92) side=(right left right left)
list=()
for set in 1 2; do
  for i in $(seq 1 20); do
    k=$(((i - 1) % 4))
    list+=("s$((set * 100 + i))|--depth-noise ${noise[$(((i - 1) / 4))]} --cvai ${cvai[$k]} --ci ${ci[$k]} --side ${side[$k]} --seed $((set * 100 + i))")
  done
done

one() {
  local name=$1 options=$2
  simulate_scan "$name" "$options" || return 0
  "$bin" measure "$work/$name.rgbdscan" --json "$work/$name-measure.json" -q --jobs 1 >/dev/null 2>"$work/$name-measure.err" || true
  scan_done "$name"
}

run_list

python3 - "$work" <<'PY'
import json, os, statistics, sys
work = sys.argv[1]
keys = ["cvai", "ci", "circumference", "diagonalA", "diagonalB", "length", "width"]
errors = {"cvai": [], "ci": []}
misses = []
print("| set (20 scans each) | CVAI | CI | HC | diagonal A | diagonal B | length | width |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for label, first in (("calibration", 101), ("fresh", 201)):
    holds = {k: 0 for k in keys}
    widths = {k: [] for k in keys}
    for seed in range(first, first + 20):
        name = f"s{seed}"
        path = f"{work}/{name}-measure.json"
        if not os.path.exists(path):
            misses.append(f"{name} refused: " + open(f"{work}/{name}-measure.err").read().strip())
            continue
        measured = json.load(open(path))
        truth = json.load(open(f"{work}/{name}-truth.json"))["measures"]
        for k in ("cvai", "ci"):
            errors[k].append(measured[k] - truth[k])
        for k in keys:
            interval = measured["intervals95"][k]
            half = (interval["high"] - interval["low"]) / 2
            widths[k].append(half)
            if interval["low"] <= truth[k] <= interval["high"]:
                holds[k] += 1
            else:
                misses.append(f"{name} {k} {measured[k] - truth[k]:+.2f}/{half:.2f}")
    cells = [f"{holds[k]} (±{statistics.median(widths[k]):.2f})" if widths[k] else "none" for k in keys]
    print(f"| {label} | " + " | ".join(cells) + " |")
print("misses (error/half-width):", ", ".join(misses) or "none")
for k in ("cvai", "ci"):
    if len(errors[k]) > 1:
        print(f"{k}: mean error {statistics.mean(errors[k]):+.3f}, standard deviation {statistics.stdev(errors[k]):.3f}")
PY
