#!/usr/bin/env bash
# Remakes the LZFSE test vectors in fixtures/lzfse/ with the reference encoder (PyPI's
# pyliblzfse, installed on first use into a venv under .build-lzfse-venv/, which git ignores).
# See scripts/make-lzfse-vectors.py for what the vectors are; commit the files it writes.
# With --full-size it writes two 480×640 depth frames instead (for timing; not committed).
# Usage: scripts/make-lzfse-vectors.sh [--full-size] [OUTPUT_FOLDER]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-lzfse-venv
if ! "$venv/bin/python" -c 'import liblzfse' 2>/dev/null; then
  echo "installing pyliblzfse into $venv ..."
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet pyliblzfse
fi
"$venv/bin/python" scripts/make-lzfse-vectors.py "$@"
