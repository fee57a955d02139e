#!/usr/bin/env bash
# Compares ArUco threshold-window settings on a scan's frames with a small C++ program against the
# system's OpenCV (scripts/detector-windows.cpp; docs/performance.md, "Marker detection"): for each
# setting the processor ms a frame on one core, the detections, those of the first setting kept,
# and, for a simulated scan with NAME.truth.json beside it, the visible markers found and the
# corners' error against the truth.
# Usage: scripts/detector-windows.sh SCAN STEP FRAMES CONFIG...   (SCAN an .rgbdscan or a TUM
# folder; every STEP-th frame, at most FRAMES; CONFIG wmin:wmax:wstep, e.g. 3:23:10 13:13:1)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { sed -n 2,8p "$0" >&2; exit 2; }
scan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
g++ -O2 -o "$tmp/detector-windows" scripts/detector-windows.cpp $(pkg-config --cflags opencv4) \
  -lopencv_aruco -lopencv_imgcodecs -lopencv_imgproc -lopencv_core
truth="${scan%.rgbdscan}.truth.json"
if [ -f "$truth" ]; then
  python3 - "$truth" "$tmp/truth.txt" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
k = t["conditions"]["renderedIntrinsics"]
corners = {m["id"]: m["corners"] for m in t["markers"]}
with open(sys.argv[2], "w") as out:
    for c in t["cameras"]:
        r = [c["headFromCamera"]["rotation"][row] for row in ("r0", "r1", "r2")]
        origin = c["headFromCamera"]["translation"]
        for i in c["visibleMarkers"]:
            uv = []
            for p in corners[i]:
                d = [p[j] - origin[j] for j in range(3)]
                x, y, z = (sum(r[j][a] * d[j] for j in range(3)) for a in range(3))  # camera = Rᵀ (head − t)
                uv += [k["fx"] * x / z + k["cx"], k["fy"] * y / z + k["cy"]]
            out.write("%d %d %s\n" % (c["frame"], i, " ".join("%.4f" % v for v in uv)))
PY
  export TRUTH="$tmp/truth.txt"
fi
taskset -c 0 "$tmp/detector-windows" "$@"
