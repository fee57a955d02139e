#!/usr/bin/env bash
# Runs every documented command of README.md and docs/*.md as written, so the docs
# cannot drift from the tool. A command is a line of a ```sh or ```console block that
# starts with `headscan`, `.build/release/headscan`, `mkdir`, `cp` or `swift run`
# (console lines after their `$ ` prompt). Blocks right after a line
# `<!-- not run: … -->` are skipped (user data, cluster jobs, the setup itself).
# Each file runs in its own scratch folder (fixtures and .build linked in), in order.
# Usage: scripts/check-docs.sh [FILE.md …]   (needs the release build)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/.build/release/headscan" ] || { echo "check-docs: build first (swift build -c release --product headscan --static-swift-stdlib)"; exit 2; }
export PATH="$repo/.build/release:$PATH"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$repo/README.md" "$repo"/docs/*.md)
failed=0 ran=0
for file in "${files[@]}"; do
  scratch=$(mktemp -d)
  ln -s "$repo/fixtures" "$scratch/fixtures"
  mkdir -p "$scratch/.build" && ln -s "$repo/.build/release" "$scratch/.build/release"
  commands=$(awk '
    /^<!-- not run/ { skip = 1; next }
    /^```(sh|console)$/ { inblock = 1; if (skip) { skipping = 1 }; skip = 0; next }
    /^```/ { inblock = 0; skipping = 0; skip = 0; next }
    inblock && !skipping {
      line = $0
      sub(/^\$ /, "", line)
      if (line ~ /^(headscan|\.build\/release\/headscan|mkdir|cp|swift run)( |$)/) print line
    }
    !inblock && NF > 0 { skip = (skip && /^<!--/) }
  ' "$file")
  while IFS= read -r command; do
    [ -n "$command" ] || continue
    case "$command" in swift\ run*) command="${command/swift run/swift run --package-path $repo}" ;; esac
    ran=$((ran + 1))
    if (cd "$scratch" && eval "$command" >"$scratch/.out" 2>&1); then
      echo "ok    ${file#$repo/}: $command"
    else
      echo "FAIL  ${file#$repo/}: $command"; sed 's/^/      /' "$scratch/.out" | tail -5; failed=$((failed + 1))
    fi
  done <<< "$commands"
  rm -rf "$scratch"
done
echo "check-docs: $ran commands, $failed failed"
[ "$failed" -eq 0 ]
