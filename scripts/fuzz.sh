#!/usr/bin/env bash
# Fuzzes every parser of headscan with libFuzzer (+ AddressSanitizer), each for a bounded time,
# under a memory limit that catches an input asking for a large allocation (-malloc_limit_mb)
# or driving the process's memory up (-rss_limit_mb):
#   FuzzScanStream        a whole .rgbdscan file (preamble, JSON header, frames)
#   FuzzTUMIndex          a TUM folder's rgb.txt and depth.txt (split at the first zero byte)
#   FuzzImageFile         a PNG or JPEG file (the C codec over libpng and libjpeg)
#   FuzzLandmarks         a *.landmarks.json file
#   FuzzCalliperCSV       a calliper CSV table
#   FuzzLZFSE             an LZFSE stream (Record3D's depth compression)
#   FuzzRecord3D          a whole Record3D .r3d export (ZIP archive, metadata, depth, colour)
#   FuzzRecord3DMetadata  a Record3D export's metadata JSON
#   FuzzCap               a cap sidecar NAME.cap.json
#   FuzzReportJSON        a measure --json report (as validate, history and batch read it)
# Seeds come from fixtures/ (made small where the fixture is large); the corpora grow in
# .build-fuzz/corpus and are reused by the next run. Crashing inputs are kept in
# .build-fuzz/findings/TARGET/ and the script exits 1 if there is any.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#        FUZZ_TARGETS="FuzzLZFSE" scripts/fuzz.sh 600   (build and run only those targets)
#        FUZZ_JOBS=2 scripts/fuzz.sh 600                (two targets at a time)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=.build-fuzz
all="FuzzScanStream FuzzTUMIndex FuzzImageFile FuzzLandmarks FuzzCalliperCSV FuzzLZFSE FuzzRecord3D FuzzRecord3DMetadata FuzzCap FuzzReportJSON"
targets=(${FUZZ_TARGETS:-$all})
# Memory limits, MB: one input may allocate at most MALLOC_LIMIT at once (a frame at the largest
# size a scan may declare, 4096 × 4096, needs 64 MiB a buffer), the process at most RSS_LIMIT.
malloc_limit=${MALLOC_LIMIT:-512} rss_limit=${RSS_LIMIT:-1024}
products=()
[ -n "${FUZZ_TARGETS:-}" ] && for target in "${targets[@]}"; do products+=(--product "$target"); done

mkdir -p "$build"
echo "building the fuzz targets (fuzzer + address sanitizer, the libraries instrumented too) ..."
swift build -c release --package-path Fuzz --scratch-path "$build" --sanitize=fuzzer --sanitize=address ${products[@]+"${products[@]}"} \
  -Xswiftc -sanitize=fuzzer,address >"$build/build.log" 2>&1 ||
  { tail -20 "$build/build.log"; exit 1; }

# Seeds.
seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"/{FuzzScanStream,FuzzTUMIndex,FuzzImageFile,FuzzLandmarks,FuzzCalliperCSV,FuzzLZFSE,FuzzRecord3D,FuzzRecord3DMetadata,FuzzCap,FuzzReportJSON}
python3 - fixtures/scans/tiny.rgbdscan "$seeds/FuzzScanStream" <<'PY'
# The fixture's header with 4×3 images and two frames (plus variants), so mutations stay fast.
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
length = struct.unpack_from("<I", raw, 12)[0]
header = json.loads(raw[16:16 + length])
def stream(h, frames, tail=b""):
    text = json.dumps(h, separators=(",", ":")).encode()
    depth = {"float16": 2, "float32": 4, "disparity16": 2, "disparity32": 4}[h["depth"]["encoding"]]
    size = 8 + h["depth"]["width"] * h["depth"]["height"] * depth + h["color"]["width"] * h["color"]["height"] * 4
    body = b"".join(struct.pack("<d", i / 30) + bytes((i * 7 + k) % 251 for k in range(size - 8)) for i in range(frames))
    return b"RGBDSCAN" + struct.pack("<II", 1, len(text)) + text + body + tail
for name, encoding in [("float16", "float16"), ("float32", "float32"), ("disparity16", "disparity16")]:
    h = json.loads(json.dumps(header))
    h["color"].update(width=4, height=3); h["depth"].update(width=4, height=3, encoding=encoding)
    open(f"{sys.argv[2]}/{name}.rgbdscan", "wb").write(stream(h, 2))
open(f"{sys.argv[2]}/partial.rgbdscan", "wb").write(stream(h, 1, b"\x00" * 5))
PY
{ cat fixtures/scans/orbit-small/rgb.txt; printf '\0'; cat fixtures/scans/orbit-small/depth.txt; } >"$seeds/FuzzTUMIndex/orbit-small"
cp "$(ls fixtures/scans/orbit-small/rgb/*.jpg | head -1)" "$seeds/FuzzImageFile/colour.jpg"
python3 - "$seeds/FuzzImageFile" <<'PY'
# Two 4×3 PNGs like the fixtures' (16-bit grey depth, 8-bit RGB colour), small enough to mutate fast.
import struct, sys, zlib
def png(bit_depth, colour_type, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 3, bit_depth, colour_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open(sys.argv[1] + "/depth.png", "wb").write(png(16, 0, [struct.pack(">4H", *(1500 + 10 * (x + 4 * y) for x in range(4))) for y in range(3)]))
open(sys.argv[1] + "/colour.png", "wb").write(png(8, 2, [bytes((40 * x + y) % 256 for x in range(12)) for y in range(3)]))
PY
cp fixtures/scans/*.landmarks.json "$seeds/FuzzLandmarks/"
python3 - fixtures/scans/tiny.truth.json "$seeds/FuzzLandmarks/points.landmarks.json" <<'PY'
# The four landmarks as points, the other form a landmarks file allows (the truth's head-frame values).
import json, sys
marks = json.load(open(sys.argv[1]))["landmarks"]
entries = [{"name": n, "x": p[0], "y": p[1], "z": p[2]} for n, p in sorted(marks.items())]
json.dump({"landmarks": entries}, open(sys.argv[2], "w"))
PY
cp fixtures/calliper/*.csv "$seeds/FuzzCalliperCSV/"
# The LZFSE vectors whose stream fits the length limit below (all but the largest).
find fixtures/lzfse -name '*.lzfse' -size -32k -exec cp {} "$seeds/FuzzLZFSE/" \;

# A small Record3D export (two 64×48 frames) and its metadata, a cap sidecar and a report, made
# by the release build when there is one (the fuzzers start from nothing otherwise).
if [ -x .build/release/headscan ]; then
  made=$(mktemp -d)
  .build/release/headscan simulate "$made/seed.r3d" --frames 2 --size 64x48 --seed 3 --quiet >/dev/null 2>&1 &&
    cp "$made/seed.r3d" "$seeds/FuzzRecord3D/" && cp "$made/seed.cap.json" "$seeds/FuzzCap/" &&
    python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("metadata"))' \
      "$made/seed.r3d" "$seeds/FuzzRecord3DMetadata/metadata" || echo "fuzz: no Record3D seed (simulate failed)"
  .build/release/headscan measure fixtures/scans/orbit-small --json "$seeds/FuzzReportJSON/report.json" --quiet >/dev/null 2>&1 ||
    echo "fuzz: no report seed (measure failed)"
  rm -rf "$made"
fi
printf '{"markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016}, "cap": {"markerCount": 40}}' >"$seeds/FuzzCap/cap.json"

# Runs one target for the time given; its line of results goes to $build/TARGET.result.
fuzz_one() {
  local target=$1 corpus="$build/corpus/$1" findings="$build/findings/$1" log="$build/$1.log" length=4096
  mkdir -p "$corpus" "$findings"
  [ "$target" = FuzzImageFile ] && length=16384  # room for the fixture JPEG
  [ "$target" = FuzzLZFSE ] && length=32768  # room for multi-block streams
  [ "$target" = FuzzRecord3D ] && length=65536  # room for the seed archive
  LSAN_OPTIONS="suppressions=$PWD/Fuzz/Suppressions/lsan.txt" \
    "$build/release/$target" "$corpus" "$seeds/$target" -max_total_time="$seconds" -max_len="$length" -timeout=10 \
    -rss_limit_mb="$rss_limit" -malloc_limit_mb="$malloc_limit" -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1 || true
  local runs coverage crashes
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  crashes=$(find "$findings" -type f | wc -l)
  printf '%-20s %4s s  %10s runs  coverage %5s  corpus %5s files  findings %s\n' \
    "$target" "$seconds" "$runs" "$coverage" "$(find "$corpus" -type f | wc -l)" "$crashes" >"$build/$target.result"
  if [ "$crashes" -gt 0 ]; then grep -m3 -E 'ERROR|Fatal error|SUMMARY' "$log" | sed 's/^/    /' >>"$build/$target.result"; fi
}

# FUZZ_JOBS targets at a time (default: one; each fuzzer uses one core).
jobs=${FUZZ_JOBS:-1}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait
status=0
for target in "${targets[@]}"; do
  cat "$build/$target.result"
  [ "$(find "$build/findings/$target" -type f | wc -l)" -gt 0 ] && status=1
done
exit $status
