#!/usr/bin/env bash
# Runs every documented command of README.md and docs/*.md as written, so the docs
# cannot drift from the tool. A command is a line of a ```sh or ```console block that
# starts with `headscan`, `.build/release/headscan`, `mkdir`, `cp` or `swift run`
# (console lines after their `$ ` prompt). Blocks right after a line
# `<!-- not run: … -->` are skipped (user data, cluster jobs, the setup itself).
# A block right after `<!-- local Slurm: … -->` runs as one bash script (every line, `set -e`)
# against a private single-node Slurm from scripts/slurm-local.sh (SLURM_CONF set), stopped
# afterwards; where that cannot start (not root, no Slurm and no apt-get) it is skipped, saying so.
# Each file runs in its own scratch folder (fixtures and .build linked in), in order.
# Usage: scripts/check-docs.sh [FILE.md …]   (needs the release build)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/.build/release/headscan" ] || { echo "check-docs: build first (swift build -c release --product headscan --static-swift-stdlib)"; exit 2; }
export PATH="$repo/.build/release:$PATH"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$repo/README.md" "$repo"/docs/*.md)
failed=0 ran=0

# Runs one `local Slurm` block in the scratch folder against a private Slurm started for it.
run_slurm_block() {
  local file=${1#$repo/} scratch=$2 block=$3 start status cluster
  # Its own folder: munged must reach it, and the scratch folder is private (mode 700).
  cluster=$(mktemp -d)
  start=$(bash "$repo/scripts/slurm-local.sh" start "$cluster" 2>"$scratch/.out" </dev/null)
  status=$?
  if [ "$status" -eq 77 ]; then
    echo "skip  $file: the local Slurm block ($(tail -1 "$scratch/.out" | sed 's/^slurm-local: //'))"
    rm -rf "$cluster"
    return
  fi
  ran=$((ran + 1))
  if [ "$status" -eq 0 ] && (cd "$scratch" && eval "$start" && bash -e -o pipefail -c "$block" >"$scratch/.out" 2>&1 </dev/null); then
    while IFS= read -r line; do [ -n "$line" ] && echo "ok    $file: [local Slurm] $line"; done <<< "$block"
  else
    echo "FAIL  $file: the local Slurm block"; sed 's/^/      /' "$scratch/.out" | tail -8; failed=$((failed + 1))
  fi
  if bash "$repo/scripts/slurm-local.sh" stop "$cluster" >"$scratch/.out" 2>&1 </dev/null; then
    rm -rf "$cluster"
  else
    echo "FAIL  $file: stopping the local Slurm (left in $cluster)"; sed 's/^/      /' "$scratch/.out"; failed=$((failed + 1))
  fi
}
for file in "${files[@]}"; do
  scratch=$(mktemp -d)
  ln -s "$repo/fixtures" "$scratch/fixtures"
  mkdir -p "$scratch/.build" && ln -s "$repo/.build/release" "$scratch/.build/release"
  commands=$(awk '
    /^<!-- not run/ { skip = 1; next }
    /^<!-- local Slurm/ { slurm = 1; next }
    /^```(sh|console)$/ { inblock = 1; if (skip) { skipping = 1 }; if (slurm) { slurming = 1 }; skip = 0; slurm = 0; next }
    /^```/ { if (slurming) { print "@slurm-end" }; inblock = 0; skipping = 0; slurming = 0; skip = 0; slurm = 0; next }
    inblock && slurming { print "@slurm " $0; next }
    inblock && !skipping {
      line = $0
      sub(/^\$ /, "", line)
      if (line ~ /^(headscan|\.build\/release\/headscan|mkdir|cp|swift run)( |$)/) print line
    }
    !inblock && NF > 0 { skip = (skip && /^<!--/); slurm = (slurm && /^<!--/) }
  ' "$file")
  block=""
  while IFS= read -r command; do
    [ -n "$command" ] || continue
    case "$command" in
      "@slurm "*) block+="${command#@slurm }"$'\n'; continue ;;
      @slurm-end) run_slurm_block "$file" "$scratch" "$block"; block=""; continue ;;
    esac
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
