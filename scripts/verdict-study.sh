#!/usr/bin/env bash
# The verdict study of docs/method.md, "Verdict": simulates clean scans and scans degraded one
# way each (part of the orbit missing, the face hidden, stickers fallen off or few, blur bursts,
# short and sparse recordings, high depth noise, a wrong stated focal length), measures each
# with `headscan measure SCAN --json --scale depth` (the landmarks file beside it, otherwise
# default options: the depth's own scale, so that a wrong stated focal length shows in the
# lengths as it does wherever the stickers cannot tell the scale), compares
# the report with the simulator's truth and prints a line a scan: its CVAI and circumference
# errors, whether the CHOA level is right, each check of the report's verdict and the verdict.
# A scan is in tolerance when |ΔCVAI| ≤ 0.5 points, |Δcircumference| ≤ 2 mm and the level is
# right; `measure` refusing a scan counts as NOT usable. Then, for each check, the worst value
# among the in-tolerance scans and the out-of-tolerance scans the current limit catches, and
# the summary: out-of-tolerance scans not flagged, in-tolerance scans usable.
# Heads are in the middle of their CHOA level (CVAI 2, 5, 7.5 or 10), so a small error cannot
# change the level by itself. Every scan's stickers keep their printed lengths on the cap
# (--sticker-wrap decal), as stickers do: the focal-length check models them so.
# Usage: scripts/verdict-study.sh [WORKDIR]
#   (40 scans of at most 240 frames, 2 at a time: about 25 minutes on two cores; each scan
#    (up to 0.6 GB) is deleted once measured; scans with a report in WORKDIR are not redone)
# shellcheck source=scripts/study-setup.sh
source "$(dirname "$0")/study-setup.sh" "$@"

# name | condition | simulate options (each scan also gets its own --seed)
conditions=$(
  cat <<'SCANS'
clean-a|clean|--frames 180 --cvai 5 --ci 82
clean-b|clean|--frames 180 --cvai 7.5 --ci 84 --side left
clean-c|clean|--frames 180 --cvai 2 --ci 93
clean-d|clean|--frames 240 --cvai 10 --ci 85
clean-e|clean realistic|--preset realistic --frames 240 --cvai 7.5 --ci 84
clean-f|clean realistic|--preset realistic --frames 240 --cvai 2 --ci 80 --side left
cover-90|orbit 0.9 turn|--frames 180 --coverage 0.9 --cvai 5 --ci 82
cover-80|orbit 0.8 turn|--frames 180 --coverage 0.8 --cvai 7.5 --ci 84
cover-70|orbit 0.7 turn (right side missing)|--frames 180 --coverage 0.7 --cvai 10 --ci 85
cover-60|orbit 0.6 turn (right side missing)|--frames 180 --coverage 0.6 --cvai 5 --ci 82 --side left
cover-50|orbit 0.5 turn (back and right missing)|--frames 180 --coverage 0.5 --cvai 7.5 --ci 84
cover-40|orbit 0.4 turn (back and right missing)|--frames 180 --coverage 0.4 --cvai 2 --ci 80
cover-60r|realistic, orbit 0.6 turn|--preset realistic --frames 240 --coverage 0.6 --cvai 7.5 --ci 84
noface|face hidden|--frames 180 --no-face --cvai 5 --ci 82
lose-4|4 stickers off at frame 30|--frames 180 --lose-marker 2@30 --lose-marker 9@30 --lose-marker 16@30 --lose-marker 23@30 --cvai 7.5 --ci 84
lose-10|10 stickers off at frame 30|--frames 180 --lose-marker 1@30 --lose-marker 4@30 --lose-marker 7@30 --lose-marker 10@30 --lose-marker 13@30 --lose-marker 16@30 --lose-marker 19@30 --lose-marker 22@30 --lose-marker 25@30 --lose-marker 28@30 --cvai 5 --ci 82
lose-16|16 stickers off at frame 10|--frames 180 --lose-marker 0@10 --lose-marker 2@10 --lose-marker 4@10 --lose-marker 6@10 --lose-marker 8@10 --lose-marker 10@10 --lose-marker 12@10 --lose-marker 14@10 --lose-marker 16@10 --lose-marker 18@10 --lose-marker 20@10 --lose-marker 22@10 --lose-marker 24@10 --lose-marker 26@10 --lose-marker 28@10 --lose-marker 29@10 --cvai 10 --ci 85
markers-12|12 stickers on the cap|--frames 180 --markers 12 --cvai 7.5 --ci 84
markers-8|8 stickers on the cap|--frames 180 --markers 8 --cvai 5 --ci 82
blur-30|motion blur in 30 % of frames|--frames 180 --motion-blur-rate 0.3 --cvai 7.5 --ci 84
blur-60|motion blur in 60 % of frames|--frames 180 --motion-blur-rate 0.6 --motion-blur-length 10:30 --cvai 10 --ci 85
burst-40|blur burst, frames 40–79 at 20 px|--frames 180 --shake-burst 40:80:20 --cvai 5 --ci 82
burst-90|blur burst, frames 20–109 at 25 px|--frames 180 --shake-burst 20:110:25 --cvai 7.5 --ci 84
frames-60|60 frames, full orbit (sparse)|--frames 60 --cvai 7.5 --ci 84
frames-36|36 frames, full orbit (sparse)|--frames 36 --cvai 5 --ci 82
frames-20|20 frames, full orbit (sparse)|--frames 20 --cvai 10 --ci 85
frames-12|12 frames, full orbit (sparse)|--frames 12 --cvai 2 --ci 80
short-60|60 frames, 0.6 turn (stopped early)|--frames 60 --coverage 0.6 --cvai 7.5 --ci 84
short-40|40 frames, 0.8 turn (stopped early)|--frames 40 --coverage 0.8 --cvai 5 --ci 82
noise-1.5|depth noise 1.5 mm at 30 cm|--frames 180 --depth-noise 1.5 --cvai 7.5 --ci 84
noise-3|depth noise 3 mm at 30 cm|--frames 180 --depth-noise 3 --cvai 5 --ci 82
noise-5|depth noise 5 mm at 30 cm|--frames 180 --depth-noise 5 --cvai 10 --ci 85
noise-1.2r|realistic, depth noise 1.2 mm at 20 cm|--preset realistic --frames 240 --depth-noise 1.2 --cvai 5 --ci 82
corr-1|correlated depth noise 1 mm|--frames 180 --correlated-noise 1 --cvai 7.5 --ci 84
offset-1|1 mm depth offset a frame|--frames 180 --frame-offset 1 --cvai 5 --ci 82
tremor-15|15 mm hand tremor|--frames 180 --tremor 15 --cvai 7.5 --ci 84
focal-1|stated focal length 1 % off|--frames 180 --focal-error 0.01 --cvai 5 --ci 82
focal-2|stated focal length 2 % off|--frames 180 --focal-error 0.02 --cvai 7.5 --ci 84
focal-0.5|stated focal length 0.5 % off|--frames 180 --focal-error 0.005 --cvai 7.5 --ci 84
focal-4|stated focal length 4 % off|--frames 180 --focal-error=-0.04 --cvai 10 --ci 85
SCANS
)

# --shake-burst FIRST:END:PIXELS: every frame FIRST…END−1 blurred (--shake, repeated).
expand() {
  local out=() a
  for a in "$@"; do
    if [ "${burst:-}" = 1 ]; then
      IFS=: read -r first end pixels <<<"$a"
      for ((f = first; f < end; f++)); do out+=(--shake "$f:$pixels"); done
      burst=0
    elif [ "$a" = --shake-burst ]; then
      burst=1
    else
      out+=("$a")
    fi
  done
  printf '%s\n' "${out[@]}"
}

# Simulates, measures and deletes one scan (nothing when its report or refusal is there).
study() {
  local name=$1 seed=$2 options=$3
  local scan="$work/$name.rgbdscan"
  [ -f "$work/$name.json" ] || [ -f "$work/$name.refused" ] && return 0
  if [ ! -f "$scan" ]; then
    # shellcheck disable=SC2086
    mapfile -t args < <(expand $options)
    "$bin" simulate "$scan" "${args[@]}" --sticker-wrap decal --seed "$seed" -q >/dev/null
  fi
  "$bin" measure "$scan" --json "$work/$name.json" --scale depth -q --jobs 1 >/dev/null 2>"$work/$name.err" ||
    mv "$work/$name.err" "$work/$name.refused"
  rm -f "$work/$name.err" "$scan"
}

seed=100
running=0
while IFS='|' read -r name _ options; do
  seed=$((seed + 1))
  study "$name" "$seed" "$options" &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done <<<"$conditions"
wait
[ "${failed:-0}" = 0 ] || { echo "verdict-study: a scan could not be simulated (see above)" >&2; exit 1; }

printf '%s\n' "$conditions" >"$work/conditions.txt"
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
rows = [line.split("|") for line in open(f"{work}/conditions.txt").read().strip().split("\n")]
checks = [  # key, heading, direction (+1: larger is worse), format
    ("contourMeasuredPercent", "contour%", -1, "{:.0f}"),
    ("contourLargestGap", "gap°", +1, "{:.0f}"),
    ("levelLayersFitted", "levelLayers", -1, "{:.0f}"),
    ("framesRegistered", "frames", -1, "{:.0f}"),
    ("framesRegisteredPercent", "frames%", -1, "{:.0f}"),
    ("markersRegisteredPercent", "markers%", -1, "{:.0f}"),
    ("cornerRMS", "cornerRMS", +1, "{:.2f}"),
    ("landmarkSD", "landmarkSD", +1, "{:.2f}"),
    ("intervalsComputed", "intervals", 0, "{}"),
    ("cvaiHalfWidth", "±CVAI", +1, "{:.2f}"),
    ("circumferenceHalfWidth", "±HC", +1, "{:.2f}"),
    ("focalLengthDeviationPercent", "focal%", +1, "{:.1f}"),
]
results = []
for name, condition, _ in rows:
    truth = json.load(open(f"{work}/{name}.truth.json"))["measures"]
    if os.path.exists(f"{work}/{name}.refused"):
        why = open(f"{work}/{name}.refused").read().strip().split("\n")[-1]
        results.append(dict(name=name, condition=condition, refused=why))
        continue
    report = json.load(open(f"{work}/{name}.json"))
    dcvai = report["cvaiLonger"] - truth["cvai"]
    dhc = report["circumference"] - truth["circumference"]
    right = report["severity"] == truth["severity"]
    verdict = report["verdict"]
    results.append(dict(name=name, condition=condition, dcvai=dcvai, dhc=dhc, right=right,
                        within=abs(dcvai) <= 0.5 and abs(dhc) <= 2 and right,
                        checks=verdict["checks"], usable=verdict["usable"], reasons=verdict["reasons"]))

print("| scan | condition | ΔCVAI | ΔHC mm | level | " + " | ".join(h for _, h, _, _ in checks) + " | verdict |")
print("|" + " --- |" * (len(checks) + 6))
for r in results:
    if "refused" in r:
        print(f"| {r['name']} | {r['condition']} | refused: {r['refused']} |" + " |" * (len(checks) + 3))
        continue
    def shown(value, fmt):
        if value is None:
            return "–"
        return ("yes" if value else "no") if isinstance(value, bool) else fmt.format(value)
    values = [shown(r["checks"].get(k), fmt) for k, _, _, fmt in checks]
    word = "usable" if r["usable"] else "NOT usable: " + "; ".join(r["reasons"])
    tolerance = "" if r["within"] else " **"
    print(f"| {r['name']}{tolerance} | {r['condition']} | {r['dcvai']:+.2f} | {r['dhc']:+.2f} | "
          f"{'right' if r['right'] else 'WRONG'} | " + " | ".join(values) + f" | {word} |")

measured = [r for r in results if "refused" not in r]
inside = [r for r in measured if r["within"]]
outside = [r for r in measured if not r["within"]]
print()
print("check: worst value among in-tolerance scans; out-of-tolerance scans beyond it")
for key, heading, direction, fmt in checks:
    have = [r for r in inside if r["checks"].get(key) is not None]
    if not have or direction == 0:
        continue
    worst = max(have, key=lambda r: direction * r["checks"][key])
    limit = worst["checks"][key]
    caught = [r["name"] for r in outside if r["checks"].get(key) is not None and direction * (r["checks"][key] - limit) > 0]
    print(f"  {key}: {fmt.format(limit)} ({worst['name']}); beyond: {', '.join(caught) or 'none'}")
missed = [r["name"] for r in outside if r["usable"]]
kept = sum(r["usable"] for r in inside)
refused = len(results) - len(measured)
print()
print(f"{len(results)} scans: {refused} refused, {len(outside)} measured out of tolerance "
      f"({len(outside) - len(missed)} NOT usable, missed: {', '.join(missed) or 'none'}), "
      f"{len(inside)} in tolerance ({kept} usable, {100 * kept / max(1, len(inside)):.0f} %)")
PY
