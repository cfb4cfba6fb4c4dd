#!/usr/bin/python3
"""The heatmap's colours as the browser drew them (issue 29, docs/report.md "Colour scale"): in a
screenshot of a report, the pixel inside the most profitable cell must be blue and the one inside
the most losing cell red. The points come from the page itself (a probe script wrote their page
coordinates and the cells' values into the DOM, see check_chromium.sh). A PNG reader of its own
(8-bit RGB or RGBA, not interlaced: what Chromium writes), so that nothing beyond the standard
library is needed.
Usage: check_pixels.py SCREENSHOT.png "X,Y,VALUE X,Y,VALUE" (the profitable point first)"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = read_png(sys.argv[1])
    (px, py, pv), (lx, ly, lv) = [[float(v) for v in p.split(",")] for p in sys.argv[2].split()]
    assert pv > 0 > lv, "the probe did not find a profitable and a losing cell: %s" % sys.argv[2]

    def pixel(x, y):
        x, y = int(round(x)), int(round(y))
        assert 0 <= x < w and 0 <= y < h, (x, y, w, h)
        r, g, b = rows[y][x * bpp:x * bpp + 3]
        return r, g, b

    profit, loss = pixel(px, py), pixel(lx, ly)
    # Blue: the best side of the diverging scale at its extreme is ColorBrewer's #2166ac; red #b2182b.
    assert profit[2] - profit[0] >= 60, "the most profitable cell (%g) is not blue: rgb%s" % (pv, profit)
    assert loss[0] - loss[2] >= 60, "the most losing cell (%g) is not red: rgb%s" % (lv, loss)
    print("pixels: profit %g at (%d, %d) rgb%s, loss %g at (%d, %d) rgb%s" % (pv, px, py, profit, lv, lx, ly, loss))


main()
