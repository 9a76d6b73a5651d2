#!/usr/bin/env python3
"""Plot a shearing-sheet snapshot of Orrery's sheet engine as a PNG (top view of the patch).

    python3 scripts/plot_sheet.py out/ring_large/Sheetring_large_000000005000.dat --out wakes.png

Reads a `Sheet<name>_<step>.dat` snapshot (header `# ... L = <m> m ...`, then `x y z vx vy vz r m`
in SI units), draws every particle as a disc of its radius seen from above (x radial to the
right, y along the orbit upwards), brighter for particles higher in z, and writes an 8-bit PNG.
Needs only numpy (the PNG is written with the standard library's zlib); the self-gravity wakes of
the OCCLUDE report's figure 27 show up as trailing bands tilted by about 20 degrees after one or
two orbits of `inputs/ring_large.ron`.
"""
import argparse
import re
import struct
import zlib

import numpy as np


def read_snapshot(path):
    box = None
    with open(path) as f:
        head = f.readline()
    m = re.search(r"L = ([0-9.eE+-]+) m", head)
    if m:
        box = float(m.group(1))
    data = np.loadtxt(path, comments="#", ndmin=2)
    if box is None:
        box = 2.0 * np.abs(data[:, :2]).max()
    return data, box, head.strip("# \n")


def write_png(path, rgb):
    """Minimal PNG writer: 8-bit RGB, filter 0 on every row, one zlib stream."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(tag, body):
        c = struct.pack(">I", len(body)) + tag + body
        return c + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 6))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def render(data, box, size):
    x, y, z, r = data[:, 0], data[:, 1], data[:, 2], data[:, 6]
    scale = size / box
    img = np.zeros((size, size), dtype=np.float64)  # brightness, 0 = empty
    zs = np.clip((z - z.min()) / max(np.ptp(z), 1e-12), 0.0, 1.0)
    px = np.floor((x + box / 2) * scale).astype(int)
    py = np.floor((box / 2 - y) * scale).astype(int)  # y up
    pr = np.maximum(np.rint(r * scale).astype(int), 1)
    order = np.argsort(z)  # higher particles drawn last (on top)
    px, py, pr, zs = px[order], py[order], pr[order], zs[order]
    for rad in np.unique(pr):
        sel = pr == rad
        oy, ox = np.mgrid[-rad:rad + 1, -rad:rad + 1]
        disc = ox * ox + oy * oy <= rad * rad
        ox, oy = ox[disc], oy[disc]
        for k in np.nonzero(sel)[0]:
            img[(py[k] + oy) % size, (px[k] + ox) % size] = 0.35 + 0.65 * zs[k]
    rgb = np.zeros((size, size, 3), dtype=np.uint8)
    rgb[..., 0] = np.uint8(255 * img * 0.95)
    rgb[..., 1] = np.uint8(255 * img * 0.85)
    rgb[..., 2] = np.uint8(255 * img * 0.70)
    return rgb


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("snapshot")
    p.add_argument("--out", required=True, help="PNG file to write")
    p.add_argument("--size", type=int, default=1000, help="image width and height in pixels")
    a = p.parse_args()
    data, box, head = read_snapshot(a.snapshot)
    write_png(a.out, render(data, box, a.size))
    print(f"{a.out}: {len(data)} particles, L = {box} m ({head})")


if __name__ == "__main__":
    main()
