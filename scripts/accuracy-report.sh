#!/usr/bin/env bash
# Simulates one scan of each head type (normal, mild, moderate and severe plagiocephaly,
# brachycephaly; 240 frames at 640×480, the default TrueDepth noise), reconstructs and
# measures each with its landmarks and with the automatic head frame, and prints the
# registration accuracy and the table of measurement errors against the exact truth.
# With --noise-range it then does the same for the five heads under the realistic preset
# (decal stickers, grazing and silhouette dropouts, holes, blur, 24–39 cm) at three depth-noise
# levels, σ = 0.2, 0.4 (the preset) and 0.8 mm at 20 cm, 300 frames each: a table a level.
# Usage: scripts/accuracy-report.sh [WORKDIR] [--noise-range]
#   (about 2 minutes and 1.5 GB there; with --noise-range about 30 minutes and 8 GB more)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
range=false
for argument in "$@"; do
  case "$argument" in
    --noise-range) range=true ;;
    *) work=$argument ;;
  esac
done
bin=.build/release/headscan
[ -x "$bin" ] || swift build -c release --product headscan --static-swift-stdlib
mkdir -p "$work"
# name  CVAI %  CI  flattened side  seed   (CVAI in the middle of its CHOA level)
while read -r name cvai ci side seed; do
  [ -f "$work/$name.rgbdscan" ] ||
    "$bin" simulate "$work/$name.rgbdscan" --cvai "$cvai" --ci "$ci" --side "$side" --seed "$seed" -q >/dev/null
done <<'HEADS'
normal     0.0  80  right  31
mild       5.0  82  right  32
moderate   7.5  84  left   33
severe    10.0  85  right  34
brachy     2.0  93  left   35
HEADS
"$bin" evaluate --measure -q "$work"/{normal,mild,moderate,severe,brachy}.rgbdscan
$range || exit 0
for noise in 0.2 0.4 0.8; do
  echo
  echo "== realistic preset, depth noise σ = $noise mm at 20 cm, 300 frames =="
  while read -r name cvai ci side seed; do
    scan="$work/realistic-$noise-$name.rgbdscan"
    [ -f "$scan" ] || "$bin" simulate "$scan" --preset realistic --frames 300 --depth-noise "$noise" \
      --cvai "$cvai" --ci "$ci" --side "$side" --seed "$seed" -q >/dev/null
  done <<'HEADS'
normal     0.0  80  right  41
mild       5.0  82  right  42
moderate   7.5  84  left   43
severe    10.0  85  right  44
brachy     2.0  93  left   45
HEADS
  "$bin" evaluate --measure -q "$work"/realistic-"$noise"-{normal,mild,moderate,severe,brachy}.rgbdscan
done
