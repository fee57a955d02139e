#!/usr/bin/env bash
# Regenerates fixtures/scans with the simulator. Deterministic: same code, same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/headscan
[ -x "$bin" ] || swift build -c release --product headscan --static-swift-stdlib
out=fixtures/scans
mkdir -p "$out"
# A whole orbit, small: 36 frames at 320×240, TUM folder with JPEG colour (~2 MB).
# Exported at 3 fps (every tenth frame of a 12 s recording).
"$bin" simulate "$out/orbit-small" --size 320x240 --frames 36 --fps 3 --format tum-jpeg \
  --cvai 6 --ci 82 --side right --colour-noise 1 --seed 11 -q
# A stream of three 160×120 frames with half-float depth, for format tests.
"$bin" simulate "$out/tiny.rgbdscan" --size 160x120 --frames 3 --depth-encoding float16 --seed 5 -q
du -sh "$out"
