#!/usr/bin/env bash
# The metric-scale study of docs/registration.md, "Metric scale from the stickers": simulates
# realistic-preset scans (120 frames, two of 600) whose depth reads up to 1 % long or short, whose stickers
# are printed 0.5 % large or small, with sticker sides of 10–20 mm, camera distances of 20–45 cm
# and stated focal errors, and measures each with `headscan measure --json` three times:
# `--scale depth` (the depth sensor's scale), `--scale auto` (the default) and `--scale markers`.
# Prints a line a scan: the scale the markers show against the true one
# ((1 + depth error)(1 + printed error)/(1 + focal error)), whether auto applied it, and the
# circumference and CVAI errors against the simulated head's truth under each choice, and
# the registration's corner RMS and the verdict with `--scale auto`.
# Usage: scripts/scale-study.sh [WORKDIR]
#   (16 scans, 2 at a time: about 8 minutes on two cores; scans done in WORKDIR are not
#    redone; each scan is deleted once measured)
# shellcheck source=scripts/study-setup.sh
source "$(dirname "$0")/study-setup.sh" "$@"

base="--preset realistic"
list=(
  "s0|--frames 120 --seed 300 --depth-scale-error=0.01"
  "s1|--frames 120 --seed 301 --depth-scale-error=-0.01"
  "s2|--frames 120 --seed 302"
  "s3|--frames 120 --seed 303 --depth-scale-error=0.005"
  "s4|--frames 120 --seed 304 --depth-scale-error=-0.005"
  "s5|--frames 120 --seed 305 --printed-side-error=0.005"
  "s6|--frames 120 --seed 306 --printed-side-error=-0.005"
  "s7|--frames 120 --seed 307 --depth-scale-error=0.01 --marker-side 12 --distance-range 0.24:0.39"
  "s8|--frames 120 --seed 318 --depth-scale-error=-0.01 --marker-side 20 --distance-range 0.2:0.26"
  "s9|--frames 120 --seed 309 --depth-scale-error=0.01 --marker-side 10 --distance-range 0.2:0.26"
  "s10|--frames 120 --seed 320 --depth-scale-error=0.01 --marker-side 10 --distance-range 0.32:0.45"
  "s11|--frames 120 --seed 311 --depth-scale-error=0.01 --focal-error=0.02"
  "s12|--frames 120 --seed 312 --focal-error=-0.02"
  "s13|--frames 120 --seed 313 --depth-scale-error=-0.01 --cvai 9 --ci 92"
  "s14|--frames 600 --seed 314 --depth-scale-error=0.01 --cvai 6"
  "s15|--frames 600 --seed 315"
)

one() {
  local name=$1 options=$2
  simulate_scan "$name" "$options" || return 0
  for scale in depth auto markers; do
    "$bin" measure "$work/$name.rgbdscan" --scale $scale --json "$work/$name-$scale.json" -q --jobs 1 >/dev/null || true
  done
  scan_done "$name"
}

# Two scans at a time, one worker thread each.
run_list

python3 - "$work" "$PWD/scripts" <<'PY'
import json, os, sys
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from study_tables import option, verdict_cell
print("| scan | conditions | true scale | markers show ± u | auto | ΔHC depth | ΔHC auto | ΔHC markers | ΔCVAI auto | severity auto | corner RMS | verdict auto |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
worse = 0
for line in open(f"{work}/conditions.txt").read().strip().split("\n"):
    name, options = line.split("|")
    truth = json.load(open(f"{work}/{name}-truth.json"))["measures"]
    reports = {}
    for scale in ("depth", "auto", "markers"):
        path = f"{work}/{name}-{scale}.json"
        reports[scale] = json.load(open(path)) if os.path.exists(path) else None
    if any(r is None for r in reports.values()):
        print(f"| {name} | {options} | refused | | | | | | | | | |")
        continue
    true = (1 + option(options, "depth-scale-error")) * (1 + option(options, "printed-side-error")) / (1 + option(options, "focal-error"))
    s = reports["auto"]["scale"]
    dhc = {k: r["circumference"] - truth["circumference"] for k, r in reports.items()}
    worse += abs(dhc["auto"]) > abs(dhc["depth"]) + 0.1
    print(f"| {name} | {options} | {true:.4f} | {s['depthScaleFactor']:.4f} ± {s['uncertainty']:.4f} | {'applied' if s['applied'] else 'kept'} "
          f"| {dhc['depth']:+.2f} mm | {dhc['auto']:+.2f} mm | {dhc['markers']:+.2f} mm "
          f"| {reports['auto']['cvai'] - truth['cvai']:+.3f} | {'right' if reports['auto']['severity'] == truth['severity'] else 'WRONG'} "
          f"| {reports['auto']['registration']['cornerRMS']:.2f} mm | {verdict_cell(reports['auto'])} |")
print(f"\nauto's circumference error larger than the depth scale's (by over 0.1 mm) on {worse} scans")
PY
