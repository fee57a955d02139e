# Sourced by the study scripts (focal-study.sh, scale-study.sh, verdict-study.sh): strict mode,
# the repository as working folder, `work` (the first argument, else a new temporary folder,
# created) and `bin` (the release headscan, built when missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=${1:-$(mktemp -d)}
bin=.build/release/headscan
[ -x "$bin" ] || swift build -c release --product headscan
mkdir -p "$work"
