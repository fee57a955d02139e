#!/usr/bin/env bash
# The interval coverage study of docs/intervals.md, "Coverage": two sets of 20 realistic-preset
# scans of 150 frames (seeds 101–120, the calibration set, and 201–220, a fresh one), σ₂₀ =
# 0.2–1.0 mm four scans at a time, the k-th of each four with CVAI 0/4/8/2, CI 80/82/85/92 and
# the flattening right/left/right/left; then two sets of 20 unlike heads (seeds 301–320, the
# set the surface term's factor was calibrated on, and 401–420, a fresh one: head lengths
# 125–185 mm, CI 74–96, CVAI 1–12, 16–48 stickers of 12–20 mm, spatially correlated depth noise
# of 0, 0.3 or 0.6 mm). Measures each with `headscan measure --json` (its simulated landmarks)
# and prints, per set, how many of the 20 intervals hold the exact measure with the median
# half-width, then the misses (error / half-width) and the mean and standard deviation of the
# CVAI and CI errors over the first 40 scans and over the unlike heads.
# Usage: scripts/coverage-study.sh [WORKDIR]
#   (80 scans, 2 at a time: about 20 minutes on two cores; scans done in WORKDIR are not
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

# The unlike heads: stickers, length, CI, CVAI, side, printed side, correlated noise (σ₂₀ 0.2–1.0
# mm four at a time; each sticker count is one whose prints fit that head at their first turns).
unlike=(
  "24 125 74 5 right 12 0.3" "32 140 96 12 left 12 0.6" "48 165 86 3 right 16 0" "24 185 80 1 left 16 0.3"
  "16 125 90 9 right 20 0.6" "16 140 74 5 left 20 0" "24 165 96 12 right 12 0.3" "32 185 86 3 left 12 0.6"
  "32 125 80 1 right 16 0" "24 140 90 9 left 16 0.3" "32 165 74 5 right 20 0.6" "40 185 96 12 left 20 0"
  "24 125 86 3 right 12 0.3" "32 140 80 1 left 12 0.6" "48 165 90 9 right 16 0" "24 185 74 5 left 16 0.3"
  "16 125 96 12 right 20 0.6" "40 140 86 3 left 20 0" "24 165 80 1 right 12 0.3" "32 185 90 9 left 12 0.6"
)
# The fresh unlike heads: other combinations of the same ranges.
fresh=(
  "32 150 78 7 left 16 0.6" "24 130 92 2 right 12 0" "40 175 84 10 left 16 0.3" "16 135 88 4 right 20 0.6"
  "24 160 76 11 left 12 0.3" "32 180 94 6 right 16 0.6" "16 130 82 8 left 20 0" "40 170 88 2 right 12 0.3"
  "24 145 80 10 left 16 0.6" "32 155 92 4 right 12 0.3" "24 135 78 6 left 20 0.6" "48 175 86 12 right 16 0"
  "24 130 84 7 left 12 0.6" "32 150 90 3 right 16 0.3" "16 140 76 9 left 20 0" "40 180 82 5 right 12 0.6"
  "24 160 94 11 left 16 0.3" "32 145 88 1 right 20 0.6" "24 170 80 8 left 12 0" "32 135 92 2 right 16 0.3"
)
for set in 3 4; do
  for i in $(seq 1 20); do
    if [ "$set" = 3 ]; then spec=${unlike[$((i - 1))]}; else spec=${fresh[$((i - 1))]}; fi
    read -r markers length ci cvai side printed correlated <<<"$spec"
    list+=("s$((set * 100 + i))|--depth-noise ${noise[$(((i - 1) / 4))]} --markers $markers --length $length --ci $ci --cvai $cvai --side $side --marker-side $printed --correlated-noise $correlated --seed $((set * 100 + i))")
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
unlike = {"cvai": [], "ci": []}
misses = []
print("| set (20 scans each) | CVAI | CI | HC | diagonal A | diagonal B | length | width |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for label, first in (("calibration", 101), ("fresh", 201), ("unlike heads", 301), ("fresh unlike heads", 401)):
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
            (unlike if first >= 301 else errors)[k].append(measured[k] - truth[k])
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
for label, found in (("calibration and fresh", errors), ("unlike heads", unlike)):
    for k in ("cvai", "ci"):
        if len(found[k]) > 1:
            print(f"{label}, {k}: mean error {statistics.mean(found[k]):+.3f}, standard deviation {statistics.stdev(found[k]):.3f}")
PY
