#!/usr/bin/env bash
# End-to-end performance of the release binary (docs/performance.md):
# simulates 600- and 1800-frame 640×480 scans (float32 depth, 1.5 and 4.4 GB), runs
# `reconstruct` and `measure` on each under /usr/bin/time, and prints frames/s, wall time,
# processor time (user + system), peak RSS and the per-stage seconds, one line each; then the
# start-up of `--help`. On a shared machine the wall time measures the load: the processor
# time is the cost, and "frames/s if every core is busy" (frames ÷ (CPU s ÷ cores)) the best
# wall-clock rate it allows; `reconstruct -v` prints each stage's processor time.
# Scans are kept in WORKDIR and reused by the next run. The first read of a scan comes
# from disk, later ones from the page cache: run twice for warm numbers.
# Both fusion methods are timed (FUSIONS="voxel-mean signed-distance" by default); PRESET=realistic
# simulates the realistic preset's scans instead of the default's; FRAMES="600 1800" the lengths.
# HEADSCAN=path times another binary (default .build/release/headscan, built if missing).
# JOBS="1 2 8 16" times each run at each worker count (--jobs; default: the binary's own, one a
# core); CORES=K pins every run to K cores with taskset (processors 0…K−1, as
# scripts/benchmark-workers.sh does), and frames/s "if all cores are busy" then counts only those.
# Usage: scripts/benchmark-end-to-end.sh [WORKDIR]   (needs ~6 GB free there)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
bin=${HEADSCAN:-.build/release/headscan}
[ -x "$bin" ] || [ -n "${HEADSCAN:-}" ] || swift build -c release --product headscan --static-swift-stdlib
[ -x "$bin" ] || { echo "benchmark: $bin is not an executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "benchmark: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git')"

pin=()
cores=$(nproc)
if [ -n "${CORES:-}" ]; then
  command -v taskset >/dev/null || { echo "benchmark: CORES needs taskset (util-linux)" >&2; exit 2; }
  [[ "$CORES" =~ ^[0-9]+$ ]] && [ "$CORES" -ge 1 ] && [ "$CORES" -le "$cores" ] || { echo "benchmark: CORES must be 1…$cores" >&2; exit 2; }
  cores=$CORES
  pin=(taskset -c "0-$((cores - 1))")
  echo "pinned to processors 0-$((cores - 1))"
fi
timed() {  # LABEL COMMAND... → prints wall, CPU and peak RSS lines, leaves the wall and CPU times in $wall and $cpu
  local label=$1
  shift
  "${pin[@]}" /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >"$work/out.txt"
  read -r wall rss_kb user system <"$work/time.txt"
  cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.1f", u + s }')
  echo "$label: wall ${wall} s"
  echo "$label: CPU ${cpu} s (user ${user} + system ${system})"
  echo "$label: peak RSS $((rss_kb / 1024)) MB"
}

preset=${PRESET:-default}
prefix=$([ "$preset" = default ] && echo orbit || echo "$preset")
for frames in ${FRAMES:-600 1800}; do
  scan="$work/$prefix-$frames.rgbdscan"
  [ -f "$scan" ] || "$bin" simulate "$scan" --preset "$preset" --frames "$frames" --seed 5 -q >/dev/null
  for jobs in ${JOBS:-default}; do
    jobs_args=()
    suffix=""
    if [ "$jobs" != default ]; then
      jobs_args=(--jobs "$jobs")
      suffix=" jobs $jobs"
    fi
    for fusion in ${FUSIONS:-voxel-mean signed-distance}; do
      label="reconstruct $frames $fusion$suffix"
      timed "$label" "$bin" reconstruct "$scan" --fusion "$fusion" -o "$work/$prefix-$frames-$fusion.ply" --json "$work/$prefix-$frames-$fusion.json" \
        "${jobs_args[@]}" -q
      echo "$label: $(awk -v f="$frames" -v s="$wall" 'BEGIN { printf "%.0f", f / s }') frames/s (wall)," \
        "$(awk -v f="$frames" -v c="$cpu" -v n="$cores" 'BEGIN { printf "%.0f", f / (c / n) }') frames/s if all $cores cores are busy"
      grep '^time' "$work/out.txt" | sed "s/^time */$label: stages /"
    done
    timed "measure $frames$suffix" "$bin" measure "$scan" -q --json "$work/$prefix-$frames.report.json" "${jobs_args[@]}"
    grep '^time' "$work/out.txt" | sed "s/^time */measure $frames$suffix: stages /"
  done
done

# Start-up: median of 21 runs of --help.
for _ in $(seq 21); do
  start=$(date +%s%N)
  "$bin" --help >/dev/null
  echo $((($(date +%s%N) - start) / 1000))
done | sort -n | awk '{ t[NR] = $1 } END { printf "start-up (--help): median %.1f ms, min %.1f ms\n", t[11] / 1000, t[1] / 1000 }'
