#!/usr/bin/env python3
"""Writes the LZFSE test vectors in fixtures/lzfse/: NAME.raw (the data) and NAME.lzfse (its
LZFSE stream), plus vectors.json listing each vector's size and block kinds.

Compressed vectors come from the reference encoder (PyPI's pyliblzfse wraps Apple's lzfse C
code); the rest are assembled here from its blocks or by hand (bvx1 headers unpacked from bvx2
ones, bvx- blocks, mixed and multi-block streams) and every stream is checked to decode to its
data with the reference decoder before it is written. Deterministic: the same files each run.

Run through scripts/make-lzfse-vectors.sh, which installs pyliblzfse into a private venv.
"""
import json
import math
import random
import struct
import sys
from pathlib import Path

import liblzfse

ARGS = [a for a in sys.argv[1:] if a != "--full-size"]
OUT = Path(ARGS[0] if ARGS else Path(__file__).resolve().parent.parent / "fixtures" / "lzfse")
# --full-size: write only two 480×640 depth frames (1.2 MB each, as Record3D stores TrueDepth
# depth), for measuring decode speed; too large to commit.
FULL_SIZE = "--full-size" in sys.argv

END = b"bvx$"


# --- inputs -----------------------------------------------------------------------------------

def text(size, seed):
    """English-like text: words drawn from a small vocabulary, so it compresses like prose."""
    rng = random.Random(seed)
    words = ("the head shape of an infant is measured from a scan with markers on a cap while the "
             "parent holds the phone around the head and the depth camera records every frame").split()
    out = []
    while sum(len(w) + 1 for w in out) <= size:
        out.append(rng.choice(words) + ("." if rng.random() < 0.08 else ""))
    return " ".join(out).encode()[:size]


def random_bytes(size, seed):
    rng = random.Random(seed)
    return bytes(rng.getrandbits(8) for _ in range(size))


def depth_frame(width, height, seed, half_precision):
    """float32 depth in metres, row-major: a head-like dome at ~0.4 m over a wall at ~0.9 m,
    with sensor noise and NaN where the camera sees nothing (a border band and a few holes).
    With `half_precision`, values are rounded to float16 first, as TrueDepth depth is."""
    rng = random.Random(seed)
    holes = [(rng.uniform(0, width), rng.uniform(0, height), rng.uniform(3, 9)) for _ in range(5)]
    values = []
    for y in range(height):
        for x in range(width):
            if x < width // 20 or any((x - hx) ** 2 + (y - hy) ** 2 < r * r for hx, hy, r in holes):
                values.append(float("nan"))
                continue
            u, v = (x - width / 2) / (0.35 * width), (y - height / 2) / (0.35 * height)
            r2 = u * u + v * v
            z = 0.40 - 0.08 * math.sqrt(1 - r2) if r2 < 1 else 0.9 + 0.02 * v
            z += rng.gauss(0, 0.0007)
            if half_precision:
                z = struct.unpack("<e", struct.pack("<e", z))[0]
            values.append(z)
    return struct.pack(f"<{len(values)}f", *values)


# --- blocks -----------------------------------------------------------------------------------

def blocks(stream):
    """Splits a stream into (kind, bytes) blocks up to and excluding bvx$."""
    out, at = [], 0
    while True:
        magic = stream[at:at + 4]
        if magic == END:
            assert at + 4 == len(stream), "bytes after bvx$"
            return out
        if magic == b"bvx-":
            size = 8 + struct.unpack_from("<I", stream, at + 4)[0]
        elif magic == b"bvxn":
            size = 12 + struct.unpack_from("<I", stream, at + 8)[0]
        elif magic == b"bvx2":
            v0, v1, v2 = struct.unpack_from("<3Q", stream, at + 8)
            size = (v2 & 0xFFFFFFFF) + ((v0 >> 20) & 0xFFFFF) + ((v1 >> 40) & 0xFFFFF)
        elif magic == b"bvx1":
            size = 772 + sum(struct.unpack_from("<2I", stream, at + 20))
        else:
            raise ValueError(f"unknown magic {magic!r} at {at}")
        out.append((magic.decode(), stream[at:at + size]))
        at += size


def kinds(stream):
    return [kind for kind, _ in blocks(stream)] + ["bvx$"]


def raw_block(data):
    return b"bvx-" + struct.pack("<I", len(data)) + data


def v2_to_v1(block):
    """The same LZFSE block with a bvx1 header: the packed fields and frequency tables of the
    bvx2 header unpacked (an implementation independent of the Swift decoder's)."""
    n_raw, = struct.unpack_from("<I", block, 4)
    v0, v1, v2 = struct.unpack_from("<3Q", block, 8)
    field = lambda w, at, width: (w >> at) & ((1 << width) - 1)
    header_size = field(v2, 0, 32)
    freqs, bits, nbits = [], int.from_bytes(block[32:header_size], "little"), 0
    for _ in range(360):
        b = bits >> nbits
        if b & 1 == 0:
            value, length = (b >> 1) & 1, 2
        elif b & 3 == 1:
            value, length = 2 + ((b >> 2) & 1), 3
        elif b & 7 == 3:
            value, length = 4 + ((b >> 3) & 3), 5
        elif b & 15 == 7:
            value, length = 8 + ((b >> 4) & 15), 8
        else:
            value, length = 24 + ((b >> 4) & 0x3FF), 14
        freqs.append(value if header_size > 32 else 0)
        nbits += length
    n_literals, n_lit_payload, n_matches = field(v0, 0, 20), field(v0, 20, 20), field(v0, 40, 20)
    n_lmd_payload = field(v1, 40, 20)
    header = struct.pack(
        "<4s6Ii4Hi3H360H2x", b"bvx1", n_raw, n_lit_payload + n_lmd_payload, n_literals, n_matches,
        n_lit_payload, n_lmd_payload, field(v0, 60, 3) - 7,
        field(v1, 0, 10), field(v1, 10, 10), field(v1, 20, 10), field(v1, 30, 10),
        field(v1, 60, 3) - 7, field(v2, 32, 10), field(v2, 42, 10), field(v2, 52, 10), *freqs)
    assert len(header) == 772
    return header + block[header_size:]


# --- vectors ----------------------------------------------------------------------------------

def full_size():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, half in (("depth-480x640", True), ("depth-480x640-float32", False)):
        data = depth_frame(480, 640, 11, half_precision=half)
        stream = liblzfse.compress(data)
        assert liblzfse.decompress(stream) == data
        (OUT / f"{name}.raw").write_bytes(data)
        (OUT / f"{name}.lzfse").write_bytes(stream)
        print(f"{name:24} {len(data)} bytes, {len(stream)} compressed  {' '.join(kinds(stream))}")


def main():
    if FULL_SIZE:
        return full_size()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in list(OUT.glob("*.raw")) + list(OUT.glob("*.lzfse")):
        old.unlink()
    vectors = {}

    def add(name, data, stream=None, raw=None):
        """Writes a vector; `raw` names an earlier vector with the same data, to share its .raw."""
        stream = liblzfse.compress(data) if stream is None else stream
        # (pyliblzfse reports an empty result as an error, so an empty vector is checked by eye.)
        assert not data or liblzfse.decompress(stream) == data, f"{name}: the reference decoder disagrees"
        if raw is None:
            (OUT / f"{name}.raw").write_bytes(data)
        else:
            assert (OUT / f"{raw}.raw").read_bytes() == data
        (OUT / f"{name}.lzfse").write_bytes(stream)
        vectors[name] = {"size": len(data), "blocks": kinds(stream), "raw": raw or name}

    # Compressed by the reference encoder.
    add("empty", b"")
    add("one-byte", b"\x2a")
    add("two-bytes", b"\x00\xff")
    add("seven-bytes", b"headsca")
    add("text-1k", text(1000, 1))
    add("text-40k", text(40_000, 2))
    add("zeros-100", bytes(100))
    add("zeros-64k", bytes(65_536))
    add("random-3k", random_bytes(3000, 3))
    add("random-20k", random_bytes(20_000, 4))
    pattern = bytes(range(7)) * 1000
    add("period-7", pattern)
    for size in (4095, 4096, 4097):  # the encoder switches from LZVN to LZFSE at 4096 bytes
        add(f"text-{size}", text(size, size))
    add("depth-160x120", depth_frame(160, 120, 5, half_precision=True))
    add("depth-120x160", depth_frame(120, 160, 6, half_precision=True))
    add("depth-160x120-float32", depth_frame(160, 120, 7, half_precision=False))

    # Assembled from the reference encoder's blocks, or by hand.
    depth = (OUT / "depth-160x120.raw").read_bytes()
    depth_stream = (OUT / "depth-160x120.lzfse").read_bytes()
    add("depth-160x120-v1", depth, b"".join(v2_to_v1(b) if k == "bvx2" else b for k, b in blocks(depth_stream)) + END,
        raw="depth-160x120")
    small = text(40_000, 2)
    add("text-40k-v1", small, b"".join(v2_to_v1(b) for _, b in blocks(liblzfse.compress(small))) + END,
        raw="text-40k")
    pieces = [text(2000, 8), bytes(5), depth[:30_000], random_bytes(300, 9), b""]
    mixed = b"".join(b for piece in pieces for _, b in blocks(liblzfse.compress(piece)))
    mixed += raw_block(b"raw tail")
    add("mixed-blocks", b"".join(pieces) + b"raw tail", mixed + END)
    chunks = [b"a", b"", b"bc", text(5000, 10), b""]  # (pyliblzfse rejects an empty first block)
    add("raw-blocks", b"".join(chunks), b"".join(raw_block(c) for c in chunks) + END)

    (OUT / "vectors.json").write_text(json.dumps(vectors, indent=1, sort_keys=True) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    for name, v in sorted(vectors.items()):
        print(f"{name:24} {v['size']:7} bytes  {' '.join(v['blocks'])}")
    print(f"{len(vectors)} vectors, {total} bytes in {OUT}")


if __name__ == "__main__":
    main()
