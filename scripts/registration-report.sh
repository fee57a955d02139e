#!/usr/bin/env bash
# The registration accuracy table of docs/registration.md: simulates the test scan, the
# 120- and 300-frame orbits and six more 240-frame heads (seeds 41-46, not used to tune
# anything), runs them with the five heads of scripts/accuracy-report.sh through
# `headscan evaluate`, and prints one line a scan (world and aligned errors, frames kept).
# Usage: scripts/registration-report.sh [WORKDIR]   (about 3 minutes and 3 GB there)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
bin=.build/release/headscan
scripts/accuracy-report.sh "$work" >/dev/null
# name  frames  CVAI  CI  flattened side  seed
while read -r name frames cvai ci side seed; do
  [ -f "$work/$name.rgbdscan" ] ||
    "$bin" simulate "$work/$name.rgbdscan" --frames "$frames" --cvai "$cvai" --ci "$ci" --side "$side" --seed "$seed" -q >/dev/null
done <<'SCANS'
t48   48   6  84  right  8
s4   120   0  80  right  4
s3   300   0  80  right  3
h41  240   6  86  left   41
h42  240   3  78  right  42
h43  240   9  85  left   43
h44  240   0  88  left   44
h45  240   3  76  left   45
h46  240   6  79  left   46
SCANS
"$bin" evaluate -q "$work"/{t48,normal,mild,moderate,severe,brachy,s4,s3,h41,h42,h43,h44,h45,h46}.rgbdscan fixtures/scans/orbit-small
