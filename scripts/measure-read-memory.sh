#!/usr/bin/env bash
# Generates a ~2 GB 640×480 scan with the simulator (850 frames, float32 depth), then
# reads it end to end (every frame decoded and searched for markers) under
# /usr/bin/time and prints wall time and peak resident memory, one line each.
# Usage: scripts/measure-read-memory.sh [WORKDIR]   (needs ~2.1 GB free there)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
bin=.build/release/headscan
[ -x "$bin" ] || swift build -c release --product headscan --static-swift-stdlib
scan="$work/two-gigabytes.rgbdscan"
[ -f "$scan" ] || "$bin" simulate "$scan" --frames 850 --seed 21 -q >/dev/null
size=$(stat -c %s "$scan")
/usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" inspect "$scan" -q >/dev/null
read -r seconds rss_kb < "$work/time.txt"
echo "scan size: $((size / 1000000)) MB"
echo "wall time: ${seconds} s"
echo "frames/s: $(awk -v s="$seconds" 'BEGIN { printf "%.0f", 850 / s }')"
echo "peak RSS: $((rss_kb / 1024)) MB"
