#!/usr/bin/env bash
# Checks the repository (no work history or outside specification referred to in docs, help
# texts and sources; no paths that differ only by case; the module map of docs/architecture.md
# against Package.swift, scripts/check-architecture.sh), then runs every documented command of
# README.md and docs/*.md as written, so the docs cannot drift from the tool. A command is a
# line of a ```sh or ```console block that starts with `headscan`, `.build/release/headscan`, `mkdir`, `cp` or `swift run`
# (console lines after their `$ ` prompt). Blocks right after a line
# `<!-- not run: … -->` are skipped (user data, cluster jobs, the setup itself).
# A block right after `<!-- local Slurm: … -->` runs as one bash script (every line, `set -e`)
# against a private single-node Slurm from scripts/slurm-local.sh (SLURM_CONF set), stopped
# afterwards; where that cannot start (not root, no Slurm and no apt-get) it is skipped, saying so.
# Each file runs in its own scratch folder (fixtures and .build linked in), in order.
# Usage: scripts/check-docs.sh [FILE.md …]   (needs the release build)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

# The repository itself, before any command runs.
static_failed=0
# The docs, help texts and sources describe the product as it is: no work history, and no
# reference to a specification outside the repository.
history=$(cd "$repo" && git grep -nIiE '\bsessions? [0-9]+|\bissues? [0-9]+|tried and not kept|contract ?§' -- \
  README.md docs Sources Tests Examples Benchmarks Fuzz scripts Package.swift ':!scripts/check-docs.sh' 2>/dev/null)
if [ -n "$history" ]; then
  echo "FAIL  work history or an outside document referred to (describe the product as it is now):"
  echo "$history" | head -20 | sed 's/^/      /'
  static_failed=$((static_failed + 1))
fi
# No two tracked paths may differ only by case: a clone on a case-insensitive file system
# (macOS by default) would merge them.
clash=$(cd "$repo" && git ls-files | awk '{n = split($0, p, "/"); s = ""; for (i = 1; i <= n; i++) { s = (i > 1 ? s "/" : "") p[i]; print s } }' |
  sort -u | awk '{l = tolower($0); if (l in seen && seen[l] != $0) print seen[l] " and " $0; seen[l] = $0}')
if [ -n "$clash" ]; then
  echo "FAIL  paths that differ only by case:"; echo "$clash" | sed 's/^/      /'
  static_failed=$((static_failed + 1))
fi
# The module map of docs/architecture.md against Package.swift and the imports.
if ! architecture=$(bash "$repo/scripts/check-architecture.sh" 2>&1); then
  echo "FAIL  the module map:"; echo "$architecture" | sed 's/^/      /'
  static_failed=$((static_failed + 1))
fi
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
echo "check-docs: $ran commands, $failed failed; $static_failed repository checks failed"
[ "$failed" -eq 0 ] && [ "$static_failed" -eq 0 ]
