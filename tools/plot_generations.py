#!/usr/bin/env python3
"""Draws each network generation's Elo against Ethereal 12 (8+0.08, one
thread, 95% error bars) over the positions it was trained on, from
docs/generations.csv, as an SVG: the curve that says when to grow the net
and when to grow the data. Standard library only.

    python3 tools/plot_generations.py            # writes docs/generations.svg

Generations without a match against Ethereal 12 are listed under the
picture, not drawn.
"""

import argparse
import csv
import html
import math

W, H = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 30, 40, 90
COLOURS = {128: "#1f77b4", 256: "#d62728", 384: "#2ca02c", 512: "#9467bd"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", default="docs/generations.csv")
    ap.add_argument("--out", default="docs/generations.svg")
    args = ap.parse_args()
    rows = list(csv.DictReader(open(args.csv, newline="")))
    drawn = [r for r in rows if r["elo_vs_ethereal12"]]
    missing = [r for r in rows if not r["elo_vs_ethereal12"]]
    xs = [math.log10(int(r["positions"])) for r in rows]
    x0, x1 = math.floor(min(xs) * 2) / 2, math.ceil(max(xs) * 2) / 2 + 0.5
    ys = [float(r["elo_vs_ethereal12"]) for r in drawn]
    es = [float(r["error"]) for r in drawn]
    y0 = min([-100] + [y - e for y, e in zip(ys, es)]) // 50 * 50
    y1 = (max([150] + [y + e for y, e in zip(ys, es)]) // 50 + 1) * 50

    def px(v):
        return LEFT + (v - x0) / (x1 - x0) * (W - LEFT - RIGHT)

    def py(v):
        return TOP + (y1 - v) / (y1 - y0) * (H - TOP - BOTTOM)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">Network '
           f'generations: Elo against Ethereal 12 (8+0.08) over training positions</text>']
    y = y0
    while y <= y1:
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(y):.1f}" y2="{py(y):.1f}" '
                   f'stroke="{"#888" if y == 0 else "#ddd"}"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:+.0f}</text>')
        y += 50
    target = py(100)
    out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{target:.1f}" y2="{target:.1f}" '
               f'stroke="#2ca02c" stroke-dasharray="6 4"/>')
    out.append(f'<text x="{W - RIGHT - 4}" y="{target - 5:.1f}" text-anchor="end" '
               f'fill="#2ca02c">64% (+100), the 0.3 target</text>')
    v = x0
    while v <= x1 + 1e-9:
        label = f"{10 ** v / 1e6:.0f}M" if 10 ** v >= 1e6 else f"{10 ** v / 1e3:.0f}k"
        out.append(f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{TOP}" y2="{H - BOTTOM}" '
                   f'stroke="#eee"/>')
        out.append(f'<text x="{px(v):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">'
                   f'{label}</text>')
        v += 0.5
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - BOTTOM + 34}" text-anchor="middle">'
               f'positions in the training data (log scale)</text>')
    for r, yv, e in zip(drawn, ys, es):
        x = px(math.log10(int(r["positions"])))
        colour = COLOURS.get(int(r["hidden"]), "#333")
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{py(yv - e):.1f}" y2="{py(yv + e):.1f}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{py(yv):.1f}" r="5" fill="{colour}"/>')
        out.append(f'<text x="{x + 8:.1f}" y="{py(yv) - 8:.1f}">gen {html.escape(r["generation"])}'
                   f' (H {r["hidden"]})</text>')
    note = "; ".join(f'gen {r["generation"]}: {r["positions"]} positions, not played '
                     f'against Ethereal 12' for r in missing)
    if note:
        out.append(f'<text x="{LEFT}" y="{H - 20}" fill="#555">{html.escape(note)}</text>')
    out.append("</svg>")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {args.out}: {len(drawn)} generations drawn, {len(missing)} listed")


if __name__ == "__main__":
    main()
