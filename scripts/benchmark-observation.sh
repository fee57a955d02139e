#!/usr/bin/env bash
# The observation stage on one core (docs/performance.md, "Marker detection"): read, grey, ArUco
# detection, edge-fitted corners, lifting and the blur index, in processor milliseconds a frame,
# from the "observe" stage of `reconstruct -v` with the process pinned to one core
# (taskset -c 0; `reconstruct -v` prints each stage's processor time), and what it found: cap
# markers detected, markers registered, the corner RMS.
# Scans: realistic 600-frame simulations (seeds 5 and 6, float16 depth, 0.9 GB each, made in
# WORKDIR once and reused), the bundled 320×240 fixture and, where present, the real board
# (../shared/data/truedepth-board). RUNS=n repeats each (default 3) and prints the fastest, as
# other work on the machine only slows a run down. HEADSCAN=path times another binary.
# Usage: scripts/benchmark-observation.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
bin=${HEADSCAN:-.build/release/headscan}
[ -x "$bin" ] || [ -n "${HEADSCAN:-}" ] || swift build -c release --product headscan
[ -x "$bin" ] || { echo "benchmark: $bin is not an executable" >&2; exit 2; }
command -v taskset >/dev/null || { echo "benchmark: needs taskset (util-linux)" >&2; exit 2; }
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git')"

scans=()
for seed in 5 6; do
  scan="$work/realistic-600-$seed.rgbdscan"
  [ -f "$scan" ] || "$bin" simulate "$scan" --preset realistic --frames 600 --seed "$seed" --depth-encoding float16 -q >/dev/null
  scans+=("$scan")
done
scans+=(fixtures/scans/orbit-small)
[ -d ../shared/data/truedepth-board/ipad-pro-12.9-4th-gen ] && scans+=(../shared/data/truedepth-board/ipad-pro-12.9-4th-gen)

for scan in "${scans[@]}"; do
  best=""
  for _ in $(seq "${RUNS:-3}"); do
    taskset -c 0 "$bin" reconstruct "$scan" -o "$work/cloud.ply" --json "$work/report.json" -v >"$work/out.txt" 2>&1
    line=$(python3 - "$work/out.txt" "$work/report.json" <<'PY'
import json, re, sys
observe = next(l for l in open(sys.argv[1]) if re.match(r"stage\s+observe:", l))
cpu = float(re.search(r"\(CPU ([0-9.]+) s\)", observe).group(1))
frames = int(re.search(r"frames read (\d+)", observe).group(1))
ids = re.search(r"cap ids detected (\d+)", observe).group(1)
window = re.search(r"smallest adaptive-threshold window, px (\d+)", observe)
windows = re.search(r"adaptive-threshold windows (\d+)", observe)
r = json.load(open(sys.argv[2]))
print("%.2f ms a frame (%d frames, CPU %.2f s), threshold windows %s from %s px, cap ids detected %s, markers registered %d, corner RMS %.3f mm" % (
    1000 * cpu / frames, frames, cpu, windows.group(1) if windows else "?", window.group(1) if window else "?", ids,
    r["markersRegistered"], r["cornerRMS"]))
PY
)
    ms=${line%% ms*}
    if [ -z "$best" ] || awk -v a="$ms" -v b="${best%% ms*}" 'BEGIN { exit !(a < b) }'; then best=$line; fi
  done
  echo "$(basename "$scan"): observe $best"
done
