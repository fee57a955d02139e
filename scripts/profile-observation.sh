#!/usr/bin/env bash
# Where the observation stage's time goes: samples `reconstruct` of SCAN on one core with
# `perf record` (every thread, OpenCV's included) and prints each part of observation
# (OpenCV's detection, the kernel copying frames from the page cache, decoding them, the
# edge-fitted corners, lifting, the grey conversion) as its share of the samples placed in
# observation and of the run's, with the stage's processor time from `reconstruct -v` and each
# part's milliseconds a frame. Parts are placed by library and by function name; what every
# stage shares (the C library's allocations and copies, the kernel's page faults, the thread
# pools) is printed apart and left out of observation's total.
# Usage: scripts/profile-observation.sh SCAN [extra reconstruct options, e.g. --marker-search whole]
# Needs `perf` (Debian: linux-perf) and python3; HEADSCAN=PATH profiles another binary.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 SCAN [reconstruct options]" >&2; exit 64; }
scan=$1
shift
bin=${HEADSCAN:-$(cd "$(dirname "$0")/.." && pwd)/.build/release/headscan}
[ -x "$bin" ] || { echo "$bin: no headscan binary (run scripts/setup.sh, or set HEADSCAN)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf: not installed (Debian: apt-get install linux-perf)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Fusion of ten frames only: the run is observation, registration and a small cloud.
taskset -c 0 perf record -q -F 2000 -o "$work/perf.data" -- \
  "$bin" reconstruct "$scan" -o "$work/cloud.ply" --jobs 1 --fuse-frames 10 -v "$@" >"$work/log.txt" 2>&1 || { tail -3 "$work/log.txt" >&2; exit 1; }
perf report -i "$work/perf.data" --no-children --sort dso,symbol -F overhead,dso,sym --stdio -g none 2>/dev/null \
  > "$work/report.txt"
python3 - "$work/report.txt" "$work/log.txt" <<'PY'
import re, sys, collections
report, log = open(sys.argv[1]).read(), open(sys.argv[2]).read()
parts = collections.Counter()
shared = collections.Counter()
for line in report.splitlines():
    m = re.match(r'\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)', line)
    if not m:
        continue
    share, library, symbol = float(m.group(1)), m.group(2), m.group(4)
    if 'opencv' in library:
        part = "OpenCV's detection (thresholds, contours, bits, cornerSubPix)"
    elif library.startswith('[kernel'):
        if not re.search(r'copy_to_iter|copy_user|copy_page_to_iter|filemap_', symbol):
            shared['kernel, other (page faults, memory, threads; every stage)'] += share
            continue
        part = 'reading the frames (the kernel copying them from the page cache)'
    elif re.search(r'toMetres|readFrame|readDepth|RGBDScanReader|ReadOnlyFile', symbol):
        part = 'decoding the frames (depth to metres)'
    elif re.search(r'BorderEdge|refinedAlongEdges|FittedBorder|GreyImage', symbol):
        part = 'edge-fitted corners'
    elif re.search(r'LiftedMarker|PnPPose|window6around', symbol):
        part = 'lifting (sticker surfaces, PnP)'
    elif re.search(r'grey4into', symbol):
        part = 'grey conversion'
    elif re.search(r'edgeBlur|observeFrame|observeRun|MarkerTracker|MarkerDetector|PixelRegion', symbol):
        part = 'the rest of observation (blur index, tracking)'
    elif library.startswith('libc') or library.startswith('libgomp') or library.startswith('libtbb'):
        shared[f'{library} (allocation, copies, thread pools; every stage)'] += share
        continue
    else:
        continue
    parts[part] += share
observe = re.search(r'stage\s+observe:.*CPU ([\d.]+) s', log)
frames = re.search(r'frames read (\d+)', log)
if observe and frames:
    print(f'observe stage: {float(observe.group(1)):.2f} s of processor time for {frames.group(1)} frames '
          f'({float(observe.group(1)) / int(frames.group(1)) * 1000:.2f} ms a frame)')
m = re.search(r'^time\s+([\d.]+) s', log, re.M)
seconds = float(m.group(1)) if m else None
total = sum(parts.values())
if total == 0:
    sys.exit('no samples placed in observation: perf found no headscan or OpenCV symbols (is the binary stripped?)')
print('part of observation: its share of observation\'s samples, of the whole run\'s, and milliseconds a frame at that share of the run\'s wall time:')
for part, share in parts.most_common():
    per_frame = ''
    if seconds and frames:
        per_frame = f'  ~{share / 100 * seconds / int(frames.group(1)) * 1000:.2f} ms a frame'
    print(f'  {share / total * 100:5.1f} %  ({share:4.1f} % of the run)  {part}{per_frame}')
print(f'  observation in all: {total:.1f} % of the run\'s samples')
print('shared by every stage, not counted above (% of the run):')
for part, share in shared.most_common():
    print(f'  {share:5.1f} %  {part}')
PY
