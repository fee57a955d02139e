#!/usr/bin/env bash
# The focal-length study of docs/registration.md, "Focal-length check": simulates realistic-preset
# scans (120 frames) across stated focal errors of −8…+8 %, sticker sides of 10–20 mm and camera
# distances of 20–45 cm (markers 13–47 px wide), plus default-preset scans with both sticker
# wraps, runs `headscan reconstruct --json` on each and compares the report's intrinsicsCheck
# (estimate ± uncertainty) with the focal length the scan was rendered with. Prints a line a
# scan — the error, the error in uncertainties (z) and whether the 95 % interval (±1.96) holds
# the truth — then the share of intervals that do.
# Usage: scripts/focal-study.sh [WORKDIR]
#   (30 scans, 2 at a time: about 6 minutes on two cores; scans with a report in WORKDIR are
#    not redone; each scan is deleted once reconstructed)
# shellcheck source=scripts/study-setup.sh
source "$(dirname "$0")/study-setup.sh" "$@"

errors=(-0.08 -0.04 0 0.04 0.08 -0.02)
sides=(10 12 16 20)
distances=(0.2:0.26 0.24:0.39 0.32:0.45)
list=()
for k in $(seq 0 23); do
  # 40 stickers of 20 mm crowd the head (first-drawn turns lay prints over prints); 32 do not.
  side=${sides[$((k % 4))]} count=""
  [ "$side" = 20 ] && count=" --markers 32"
  list+=("r$k|--preset realistic --frames 120 --seed $((100 + k)) --focal-error=${errors[$((k % 6))]} --marker-side $side$count --distance-range ${distances[$((k % 3))]}")
done
for k in 0 1 2; do
  list+=("tangent$k|--frames 120 --seed $((200 + k)) --sticker-wrap tangent")
  list+=("decal$k|--frames 120 --seed $((200 + k)) --sticker-wrap decal")
done

one() {
  local name=$1 options=$2
  [ -f "$work/$name.json" ] && return 0
  # shellcheck disable=SC2086
  "$bin" simulate "$work/$name.rgbdscan" $options -q >/dev/null
  "$bin" reconstruct "$work/$name.rgbdscan" -o "$work/$name.ply" --json "$work/$name.json" -q --jobs 1 >/dev/null
  rm -f "$work/$name.rgbdscan" "$work/$name.ply"
}

running=0
for line in "${list[@]}"; do
  one "${line%%|*}" "${line#*|}" &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
printf '%s\n' "${list[@]}" >"$work/conditions.txt"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
print("| scan | conditions | stated px | true px | estimate ± u px | error | z | 95 % holds |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
held = total = 0
for line in open(f"{work}/conditions.txt").read().strip().split("\n"):
    name, options = line.split("|")
    report = json.load(open(f"{work}/{name}.json"))
    truth = json.load(open(f"{work}/{name}.truth.json"))["conditions"]
    true, stated = truth["renderedIntrinsics"]["fx"], truth["statedIntrinsics"]["fx"]
    check = report.get("intrinsicsCheck")
    words = options.split()
    skip = {i + 1 for i, o in enumerate(words) if o in ("--seed", "--frames")} | {i for i, o in enumerate(words) if o in ("--seed", "--frames")}
    shown = " ".join(o for i, o in enumerate(words) if i not in skip)
    if not check:
        print(f"| {name} | {shown} | {stated:.1f} | {true:.1f} | no check | | | |")
        continue
    estimate, u = check["focalLengthEstimate"], check["focalLengthUncertainty"]
    z = (estimate - true) / u if u > 0 else float("inf")
    total += 1
    held += abs(z) <= 1.96
    print(f"| {name} | {shown} | {stated:.1f} | {true:.1f} | {estimate:.1f} ± {u:.1f} "
          f"| {100 * (estimate - true) / true:+.2f} % | {z:+.1f} | {'yes' if abs(z) <= 1.96 else 'no'} |")
print(f"\n95 % intervals holding the true focal length: {held} of {total}")
PY
