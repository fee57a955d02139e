#!/usr/bin/env bash
# Keeps the module map of docs/architecture.md, Package.swift and the imports in step. Fails when
# - the map's table (between `<!-- module map: begin -->` and `<!-- module map: end -->`) does not
#   list exactly the package's non-test targets, each with exactly its direct dependencies;
# - a Swift file imports a module its target (library, executable or test) does not depend on;
# - a Swift target depends on a module that none of its files imports.
# Usage: scripts/check-architecture.sh   (needs swift and python3)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
swift package dump-package >"$manifest"
python3 - "$manifest" <<'PY'
import json, os, re, sys

manifest = json.load(open(sys.argv[1]))
system = {"Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Darwin", "Synchronization", "Testing", "XCTest"}
problems = []

targets = {}
for target in manifest["targets"]:
    deps = []
    for dependency in target["dependencies"]:
        kind = next(iter(dependency))
        deps.append(dependency[kind][0])
    folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
    targets[target["name"]] = {"type": target["type"], "deps": deps, "folder": folder}

# 1. The map in docs/architecture.md.
text = open("docs/architecture.md").read()
match = re.search(r"<!-- module map: begin -->(.*?)<!-- module map: end -->", text, re.S)
if not match:
    problems.append("docs/architecture.md: no module map between '<!-- module map: begin -->' and '<!-- module map: end -->'")
else:
    rows = {}
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        name = cells[0].strip("`")
        rows[name] = set() if cells[1] in ("—", "-", "") else {d.strip() for d in cells[1].split(",")}
    expected = {n: set(t["deps"]) for n, t in targets.items() if t["type"] != "test"}
    for name in sorted(expected.keys() - rows.keys()):
        problems.append(f"docs/architecture.md: the module map lacks target {name}")
    for name in sorted(rows.keys() - expected.keys()):
        problems.append(f"docs/architecture.md: the module map lists {name}, which Package.swift does not have")
    for name in sorted(expected.keys() & rows.keys()):
        if rows[name] != expected[name]:
            missing, extra = expected[name] - rows[name], rows[name] - expected[name]
            detail = "; ".join(s for s in [f"missing {', '.join(sorted(missing))}" if missing else "",
                                           f"not in Package.swift: {', '.join(sorted(extra))}" if extra else ""] if s)
            problems.append(f"docs/architecture.md: {name}'s dependencies differ from Package.swift ({detail})")

# 2 and 3. Imports against declared dependencies.
pattern = re.compile(r"^\s*(?:@_exported |@testable |public |package |internal |private |fileprivate )*import\s+(?:(?:struct|class|enum|func|protocol|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)
for name, target in sorted(targets.items()):
    folder = target["folder"]
    if not os.path.isdir(folder):
        continue
    imported = set()
    for root, _, files in os.walk(folder):
        for file in files:
            if not file.endswith(".swift"):
                continue
            path = os.path.join(root, file)
            for module in pattern.findall(open(path, encoding="utf-8").read()):
                imported.add(module)
                if module != name and module not in system and module not in target["deps"]:
                    problems.append(f"{path}: imports {module}, which target {name} does not depend on")
    swift_files = any(f.endswith(".swift") for _, _, fs in os.walk(folder) for f in fs)
    if swift_files:
        for dependency in target["deps"]:
            # A test may depend on an executable only to have it built (the tests run it).
            if targets.get(dependency, {}).get("type") == "executable":
                continue
            if dependency not in imported:
                problems.append(f"Package.swift: {name} depends on {dependency}, which none of its files imports")

for problem in problems:
    print("check-architecture: " + problem)
print(f"check-architecture: {len(targets)} targets, {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
