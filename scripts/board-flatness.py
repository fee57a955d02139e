#!/usr/bin/env python3
"""How flat is the real TrueDepth board, as its own depth shows it, and how close is the map to it?

Usage: scripts/board-flatness.py BOARD_FOLDER MARKERS.json STREAM.rgbdscan RECONSTRUCT.json

BOARD_FOLDER is ../shared/data/truedepth-board/ipad-pro-12.9-4th-gen (its board_truth.json);
MARKERS.json is `headscan markers BOARD --json MARKERS.json --refine subpixel`; STREAM.rgbdscan is
`headscan convert BOARD STREAM.rgbdscan` (float32 depth); RECONSTRUCT.json is `headscan
reconstruct BOARD -o C.ply --scale markers --json RECONSTRUCT.json`.

1. Per frame with eight or more markers: every third depth pixel inside the detected markers'
   extent on the board is placed on the board through the image-to-board homography of the
   detected corners, lifted with the stated intrinsics, and its distance to the frame's own
   robust plane taken (mm, positive towards the camera). No registration is involved.
2. One quadratic shared by all frames is fitted to those distances (each frame's own plane taken
   out of the fit): once in board coordinates (a bend of the board) and once in image coordinates
   (a bend of the sensor), and both together. The better fit says where the bend lives.
3. The map (`markerMap`) is compared by a similarity fit with the flat printed board and with the
   board bent as step 2 found it.
"""
import json
import sys

import numpy as np

board_folder, markers_path, stream_path, report_path = sys.argv[1:5]
truth = json.load(open(board_folder + "/board_truth.json"))
corners_on_board = {m["id"]: np.array(m["corners"], float) for m in truth["markers"]}
stream = open(stream_path, "rb")
stream.read(8)
_, header_length = np.frombuffer(stream.read(8), "<u4")
header = json.loads(stream.read(int(header_length)))
width, height = header["depth"]["width"], header["depth"]["height"]
assert header["depth"]["encoding"] == "float32" and (width, height) == (header["color"]["width"], header["color"]["height"])
frame_size = 8 + width * height * 8
first_frame = 16 + int(header_length)
k = header["intrinsics"]
scale_x = width / k["width"]
fx, fy = k["fx"] * scale_x, k["fy"] * scale_x
cx, cy = (k["cx"] + 0.5) * scale_x - 0.5, (k["cy"] + 0.5) * scale_x - 0.5


def homography(a, b):
    """Least-squares homography a -> b (DLT, both sides normalised)."""
    def normaliser(p):
        m = p.mean(0)
        s = np.sqrt(2) / np.sqrt(((p - m) ** 2).sum(1).mean())
        return np.array([[s, 0, -s * m[0]], [0, s, -s * m[1]], [0, 0, 1]])
    ta, tb = normaliser(a), normaliser(b)
    pa = (ta @ np.c_[a, np.ones(len(a))].T).T
    pb = (tb @ np.c_[b, np.ones(len(b))].T).T
    rows = []
    for (x, y, _), (u, v, _) in zip(pa, pb):
        rows.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        rows.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    h = np.linalg.svd(np.array(rows))[2][-1].reshape(3, 3)
    return np.linalg.inv(tb) @ h @ ta


u_grid, v_grid = np.meshgrid(np.arange(0, width, 3, dtype=float), np.arange(0, height, 3, dtype=float))
u_grid, v_grid = u_grid.ravel(), v_grid.ravel()
samples = []
for frame in json.load(open(markers_path))["frames"]:
    seen = [m for m in frame["markers"] if m["id"] in corners_on_board]
    if len(seen) < 8:
        continue
    image = np.concatenate([np.array(m["corners"], float) for m in seen])
    board = np.concatenate([corners_on_board[m["id"]][:, :2] for m in seen])
    h = homography(image, board)
    p = h @ np.c_[u_grid, v_grid, np.ones_like(u_grid)].T
    x, y = p[0] / p[2], p[1] / p[2]
    low, high = board.min(0), board.max(0)
    stream.seek(first_frame + frame["frame"] * frame_size + 8)
    z = np.frombuffer(stream.read(width * height * 4), "<f4").reshape(height, width)[v_grid.astype(int), u_grid.astype(int)].astype(float)
    inside = (x > low[0]) & (x < high[0]) & (y > low[1]) & (y < high[1]) & np.isfinite(z) & (z > 0)
    points = np.c_[(u_grid[inside] - cx) / fx * z[inside], (v_grid[inside] - cy) / fy * z[inside], z[inside]]
    keep = np.ones(len(points), bool)
    for _ in range(3):
        centre = points[keep].mean(0)
        normal = np.linalg.svd(points[keep] - centre)[2][2]
        distance = (points - centre) @ normal
        spread = np.median(np.abs(distance[keep] - np.median(distance[keep]))) * 1.4826
        keep = np.abs(distance) < max(3 * spread, 0.001)
    distance *= -np.sign(normal[2])
    samples.append(np.c_[np.full(keep.sum(), frame["frame"]), u_grid[inside][keep], v_grid[inside][keep],
                         x[inside][keep], y[inside][keep], distance[keep] * 1000])
data = np.concatenate(samples)
frames, d = data[:, 0], data[:, 5]
centre_u, centre_v = (data[:, 1] - cx) / (width / 2), (data[:, 2] - cy) / (width / 2)
board_centre = np.array([c[:, :2] for c in corners_on_board.values()]).reshape(-1, 2)
middle = (board_centre.min(0) + board_centre.max(0)) / 2
board_x, board_y = (data[:, 3] - middle[0]) / 0.1, (data[:, 4] - middle[1]) / 0.1
groups = [np.where(frames == f)[0] for f in np.unique(frames)]


def without_frame_planes(columns):
    """Each column less its own frame's least-squares plane in the image (Frisch-Waugh)."""
    columns = np.array(columns, float).reshape(len(d), -1).copy()
    for g in groups:
        a = np.c_[np.ones(len(g)), centre_u[g], centre_v[g]]
        columns[g] -= a @ np.linalg.lstsq(a, columns[g], rcond=None)[0]
    return columns


residual = without_frame_planes(d)[:, 0]
print(f"{len(groups)} frames with 8 or more markers, {len(d)} depth samples on the board")
print(f"depth about each frame's own plane: {np.sqrt((residual ** 2).mean()):.3f} mm RMS")


def quadratic(a, b):
    return np.c_[a * a, a * b, b * b]


fits = {}
for name, columns in [("on the board", quadratic(board_x, board_y)), ("in the image", quadratic(centre_u, centre_v)),
                      ("both", np.c_[quadratic(board_x, board_y), quadratic(centre_u, centre_v)])]:
    a = without_frame_planes(columns)
    coefficients = np.linalg.lstsq(a, residual, rcond=None)[0]
    fits[name] = coefficients
    left = residual - a @ coefficients
    print(f"one shared quadratic {name}: {np.sqrt((left ** 2).mean()):.3f} mm RMS left; mm per (0.1 m)^2 or per half-width^2: "
          + ", ".join(f"{c:+.3f}" for c in coefficients))

report = json.load(open(report_path))
mapped = [(np.array(e["corners"]), corners_on_board[e["id"]]) for e in report["markerMap"] if e["id"] in corners_on_board]
source = np.concatenate([m for m, _ in mapped])
target = np.concatenate([t for _, t in mapped])


def similarity_rms(target):
    ms, mt = source.mean(0), target.mean(0)
    u, s, vt = np.linalg.svd((target - mt).T @ (source - ms))
    flip = np.eye(3)
    if np.linalg.det(u @ vt) < 0:
        flip[2, 2] = -1
    rotation = u @ flip @ vt
    scale = np.trace(np.diag(s) @ flip) / ((source - ms) ** 2).sum()
    moved = (scale * (rotation @ (source - ms).T)).T + mt
    return 1000 * np.sqrt(((moved - target) ** 2).sum(1).mean()), 1 / scale - 1


c2, cxy, cy2 = fits["on the board"]
bx, by = (target[:, 0] - middle[0]) / 0.1, (target[:, 1] - middle[1]) / 0.1
bent = target.copy()
bent[:, 2] = -(c2 * bx * bx + cxy * bx * by + cy2 * by * by) / 1000  # z points into the board
print(f"map ({len(mapped)} markers) against the flat printed board: {similarity_rms(target)[0]:.3f} mm RMS")
print(f"map against the board bent as its depth shows: {similarity_rms(bent)[0]:.3f} mm RMS")
