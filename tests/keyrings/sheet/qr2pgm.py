#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Turn the QR codes of 'ksp party slips' txt (block characters) or html
# (inline SVG) output into PGM pictures that zbarimg can read, so that the
# test decodes what a phone would scan.
# Usage: qr2pgm.py txt|html INPUT OUTPREFIX   -> OUTPREFIX-N.pgm, prints N
import re
import sys

SCALE = 6
BORDER = 4


def write_pgm(path, grid):
    h = len(grid)
    w = max(len(r) for r in grid) if grid else 0
    W, H = (w + 2 * BORDER) * SCALE, (h + 2 * BORDER) * SCALE
    px = bytearray(b"\xff" * (W * H))
    for y, row in enumerate(grid):
        for x, dark in enumerate(row):
            if not dark:
                continue
            for dy in range(SCALE):
                o = ((y + BORDER) * SCALE + dy) * W + (x + BORDER) * SCALE
                px[o:o + SCALE] = b"\x00" * SCALE
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (W, H))
        f.write(bytes(px))


def from_text(text):
    blocks, cur = [], []
    for line in text.split("\n"):
        if any(c in line for c in "\u2580\u2584\u2588") and not line.startswith(("pub", "uid", "---")):
            top = [c in "\u2580\u2588" for c in line]
            bottom = [c in "\u2584\u2588" for c in line]
            cur += [top, bottom]
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


def from_svg(text):
    blocks = []
    for m in re.finditer(r'<svg class="qr"[^>]*viewBox="0 0 (\d+) (\d+)".*?<path[^>]* d="([^"]*)"', text):
        n = int(m.group(1))
        grid = [[False] * n for _ in range(n)]
        for x, y, run in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", m.group(3)):
            for i in range(int(run)):
                grid[int(y)][int(x) + i] = True
        blocks.append(grid)
    return blocks


kind, src, prefix = sys.argv[1:4]
data = open(src, encoding="utf-8").read()
blocks = from_text(data) if kind == "txt" else from_svg(data)
for i, g in enumerate(blocks):
    write_pgm("%s-%d.pgm" % (prefix, i + 1), g)
print(len(blocks))
