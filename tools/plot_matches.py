#!/usr/bin/env python3
"""Draws Brudno's Elo against the fixed sparring engines over time, with
95% error bars, from docs/matches.csv, as an SVG. Standard library only.

    python3 tools/plot_matches.py                 # writes docs/elo.svg
    python3 tools/plot_matches.py --tc 8+0.08 --out docs/elo.svg

Only full-strength, one-thread matches at one time control (8+0.08 by
default) against the named opponents are drawn; matches between builds of Brudno are in the log but
not on the picture (their Elo is relative to a moving main).
"""

import argparse
import csv
import datetime
import html

OPPONENTS = {
    "Glaurung 2.2": "#1f77b4",
    "GNU Chess 6.2.7": "#2ca02c",
    "Toga II 3.0": "#d62728",
    "Ethereal 12": "#9467bd",
}
W, H = 900, 480
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 40, 60


def load(path, tc):
    points = []
    for r in csv.DictReader(open(path, newline="")):
        if r["opponent"] not in OPPONENTS or r["tc"] != tc:
            continue
        # Weaker levels and runs with more threads are other engines.
        if r["verdict"] == "level" or "thread" in r["change"]:
            continue
        try:
            elo, err = float(r["elo"]), float(r["error"] or 0)
        except ValueError:
            continue
        if abs(elo) > 650:  # a score near 100% says only "far above"
            continue
        day = datetime.date.fromisoformat(r["date"])
        points.append((day, r["opponent"], elo, min(err, 250.0), int(r["pairs"] or 0)))
    return points


def svg(points, tc):
    days = [p[0] for p in points]
    d0, d1 = min(days), max(days)
    span = max((d1 - d0).days, 1)
    lo = min(-250, min(p[2] - p[3] for p in points))
    hi = max(650, max(p[2] + p[3] for p in points))
    x = lambda d, k=0: LEFT + ((d - d0).days + 0.5 + k) / (span + 1) * (W - LEFT - RIGHT)
    y = lambda e: TOP + (hi - e) / (hi - lo) * (H - TOP - BOTTOM)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="22" font-size="15">Brudno against fixed opponents, {html.escape(tc)}, '
           f'Elo difference with 95% error</text>']
    step = 100
    for e in range(int(lo // step) * step, int(hi) + 1, step):
        if lo <= e <= hi:
            out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(e):.1f}" y2="{y(e):.1f}" '
                       f'stroke="{"#888" if e == 0 else "#e5e5e5"}"/>')
            out.append(f'<text x="{LEFT - 8}" y="{y(e) + 4:.1f}" text-anchor="end">{e:+d}</text>')
    for k in range(span + 1):
        d = d0 + datetime.timedelta(days=k)
        if span <= 14 or k % 2 == 0:
            out.append(f'<text x="{x(d):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">'
                       f'{d.strftime("%m-%d")}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 15}" text-anchor="middle">date of the match</text>')
    # Spread the points of one day so their bars do not overlap.
    by_day = {}
    for p in points:
        by_day.setdefault(p[0], []).append(p)
    for day, ps in by_day.items():
        for i, (d, opp, elo, err, pairs) in enumerate(ps):
            off = (i + 0.5) / len(ps) - 0.5
            cx = x(d, off * 0.8)
            c = OPPONENTS[opp]
            out.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(elo - err):.1f}" y2="{y(elo + err):.1f}" '
                       f'stroke="{c}" stroke-width="1.5"/>')
            out.append(f'<circle cx="{cx:.1f}" cy="{y(elo):.1f}" r="{2.5 + min(pairs, 300) / 100:.1f}" fill="{c}">'
                       f'<title>{html.escape(opp)} {d} {elo:+.1f} ± {err:.1f} ({pairs} pairs)</title></circle>')
    for i, (opp, c) in enumerate(OPPONENTS.items()):
        ly = TOP + 20 + i * 20
        out.append(f'<circle cx="{W - RIGHT + 20}" cy="{ly - 4}" r="5" fill="{c}"/>')
        out.append(f'<text x="{W - RIGHT + 32}" y="{ly}">{html.escape(opp)}</text>')
    out.append(f'<text x="{W - RIGHT + 14}" y="{TOP + 140}" font-size="11" fill="#555">dot size: pairs played</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", default="docs/matches.csv")
    ap.add_argument("--tc", default="8+0.08")
    ap.add_argument("--out", default="docs/elo.svg")
    a = ap.parse_args()
    points = load(a.csv, a.tc)
    with open(a.out, "w") as f:
        f.write(svg(points, a.tc))
    print(f"{len(points)} matches drawn to {a.out}")


if __name__ == "__main__":
    main()
