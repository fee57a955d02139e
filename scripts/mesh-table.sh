#!/usr/bin/env bash
# The head-mesh table of docs/head-mesh.md: for each seed, a plagiocephalic (CI 84, CVAI 6)
# and a brachycephalic (CI 92, CVAI 1) head simulated as 36 frames of the default preset and
# 150 of the realistic one, reconstructed with signed-distance fusion and meshed; one line a
# scan and mesh: topology, filled share, vault RMS to the exact head, detail RMS near the nose
# and tragions, mesh − cloud CVAI and circumference, and mesh, cloud and the cloud's sampling
# against the exact head measured alike. The targets are checked on the default mesh (exit 1
# when one is missed).
# Usage: scripts/mesh-table.sh [--seeds 8,9,10,11] [--spacings MM,…] [--supports SPACINGS,…]
#                              [--scans default,realistic]
#   (builds Benchmarks/'s MeshTable in release the first time; then minutes a scan)
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
exec swift run -c release MeshTable "$@"
