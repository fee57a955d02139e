#!/usr/bin/env bash
# Worker count against wall time, processor time and peak memory (docs/performance.md,
# "Workers and memory"): runs `headscan reconstruct SCAN --jobs N` for each N of JOBS, each
# pinned with taskset to CORES cores (default: every core), under /usr/bin/time, and prints one
# line each: jobs, cores, wall s, CPU s, peak RSS MB and the fused cloud's SHA-256 (the same on
# every line: the result does not depend on the worker count).
# Without SCAN, simulates a 1800-frame realistic-preset scan (seed 5) into WORKDIR first.
# Usage: scripts/benchmark-workers.sh [SCAN]   env: JOBS="1 2 8 16" CORES=N RUNS=1 WORKDIR=dir
#        HEADSCAN=path (default .build/release/headscan) COMMAND=reconstruct|measure
#        HEADSCAN_CORES=K: headscan plans for K cores (K workers running at once on these cores)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${HEADSCAN:-.build/release/headscan}
[ -x "$bin" ] || { echo "benchmark-workers: $bin is not an executable (swift build -c release --product headscan)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "benchmark-workers: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=${WORKDIR:-$(mktemp -d)}
mkdir -p "$work"
scan=${1:-$work/realistic-1800.rgbdscan}
if [ ! -e "$scan" ]; then
  [ $# -eq 0 ] || { echo "benchmark-workers: $scan: no such scan" >&2; exit 2; }
  "$bin" simulate "$scan" --preset realistic --frames 1800 --seed 5 -q
fi
cores=${CORES:-$(nproc)}
[ "$cores" -ge 1 ] && [ "$cores" -le "$(nproc)" ] || { echo "benchmark-workers: CORES must be 1…$(nproc)" >&2; exit 2; }
pin="0-$((cores - 1))"
command=${COMMAND:-reconstruct}
echo "machine: $(nproc) cores ($cores used${HEADSCAN_CORES:+, planned for $HEADSCAN_CORES by HEADSCAN_CORES}), $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git'), $command $(basename "$scan")"
printf '%5s %6s %8s %8s %9s  %s\n' jobs cores "wall s" "CPU s" "RSS MB" "cloud sha256"
for jobs in ${JOBS:-1 2 8 16}; do
  for _ in $(seq "${RUNS:-1}"); do
    if [ "$command" = measure ]; then
      args=(measure "$scan" --json "$work/report-$jobs.json" --cloud "$work/cloud-$jobs.ply")
    else
      args=(reconstruct "$scan" -o "$work/cloud-$jobs.ply")
    fi
    taskset -c "$pin" /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$bin" "${args[@]}" --jobs "$jobs" -q >/dev/null
    read -r wall rss_kb user system <"$work/time.txt"
    printf '%5s %6s %8s %8.1f %9d  %s\n' "$jobs" "$cores" "$wall" "$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')" \
      $((rss_kb / 1024)) "$(sha256sum "$work/cloud-$jobs.ply" | cut -c1-16)"
  done
done
