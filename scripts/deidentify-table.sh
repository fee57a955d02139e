#!/usr/bin/env bash
# The de-identification table of docs/formats.md: for each seed, a plagiocephalic head (CI 84,
# CVAI 6) simulated as 48 frames of the default preset, measured, copied with
# `convert --deidentify` (the example key) and the copy measured with the landmarks written
# beside it; one line a seed: the original's and the copy's CVAI, their difference and the
# circumference's difference (mm).
# Usage: scripts/deidentify-table.sh [--contour METHOD] [SEEDS...]
#   (default 8 9 10 11 12 13 14 15; about a minute a seed; --contour is passed to both measures)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
headscan="$root/.build/release/headscan"
[ -x "$headscan" ] || (cd "$root" && swift build -c release --product headscan >/dev/null)
contour=()
if [ "${1:-}" = "--contour" ]; then
  [ $# -ge 2 ] || { echo "deidentify-table.sh: --contour needs a method (binned-medians or fourier-fit)" >&2; exit 64; }
  contour=(--contour "$2")
  shift 2
fi
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(8 9 10 11 12 13 14 15)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '%-5s %8s %8s %8s %10s\n' seed cvai copy diff circ-diff
for s in "${seeds[@]}"; do
  "$headscan" simulate "$work/s$s.rgbdscan" --frames 48 --seed "$s" --ci 84 --cvai 6 --quiet >/dev/null
  "$headscan" measure "$work/s$s.rgbdscan" --json "$work/s$s.json" "${contour[@]}" --quiet >/dev/null
  "$headscan" convert "$work/s$s.rgbdscan" "$work/c$s.rgbdscan" --deidentify --key-file "$root/fixtures/example.key" --quiet >/dev/null
  "$headscan" measure "$work/c$s.rgbdscan" --json "$work/c$s.json" "${contour[@]}" --quiet >/dev/null
  python3 - "$s" "$work/s$s.json" "$work/c$s.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[2:4])
print('%-5s %8.3f %8.3f %+8.3f %+10.2f' % (sys.argv[1], a['cvai'], b['cvai'], b['cvai'] - a['cvai'], b['circumference'] - a['circumference']))
PY
done
