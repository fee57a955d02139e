# Sourced by the study scripts (focal-study.sh, scale-study.sh, verdict-study.sh): strict mode,
# the repository as working folder, `work` (the first argument, else a new temporary folder,
# created) and `bin` (the release headscan, built when missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=${1:-$(mktemp -d)}
bin=.build/release/headscan
[ -x "$bin" ] || swift build -c release --product headscan
mkdir -p "$work"

# Runs `one NAME OPTIONS` for every `NAME|OPTIONS` line of `list`, two at a time, with `work`,
# `bin` and `base` exported to it; `one` starts with `simulate_scan` (which skips a scan
# already done) and ends with `scan_done`. Then writes the list to `work/conditions.txt` for the summary.
run_list() {
  export work bin base
  export -f one simulate_scan scan_done
  printf '%s\n' "${list[@]}" | xargs -P 2 -I LINE bash -c 'one "${1%%|*}" "${1#*|}"' _ LINE
  printf '%s\n' "${list[@]}" >"$work/conditions.txt"
}

# Simulates NAME with `base` and OPTIONS into `work`; fails (so `one` returns) when NAME is
# already done.
simulate_scan() {
  [ -f "$work/$1.done" ] && return 1
  # shellcheck disable=SC2086
  "$bin" simulate "$work/$1.rgbdscan" $base $2 -q >/dev/null
}

# Keeps NAME's truth as NAME-truth.json, deletes the scan and its landmarks, marks it done.
scan_done() {
  mv "$work/$1.truth.json" "$work/$1-truth.json"
  rm -f "$work/$1.rgbdscan" "$work/$1.landmarks.json" "$work/$1.ply"
  touch "$work/$1.done"
}
