#!/usr/bin/env python3
"""Side-by-side speed of two builds: `brudno bench DEPTH` on each in turn.

Runs the two binaries alternately (A then B for the first half of the
rounds, B then A for the second, so that a drift of the machine's speed
falls on both), checks that both searched the same number of nodes, and
prints the ratio of nodes per second B/A per round with its mean and
standard error, for each order and overall.

    python3 tools/bench_pairs.py OLD NEW --depth 13 --rounds 20
"""

import argparse
import re
import statistics
import subprocess


def bench(binary, depth):
    out = subprocess.run([binary, "bench", str(depth)], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"(\d+) nodes (\d+) nps", out)
    if not m:
        raise SystemExit(f"{binary}: no 'N nodes M nps' line in its bench output")
    return int(m.group(1)), int(m.group(2))


def summary(label, ratios):
    mean = statistics.mean(ratios)
    err = statistics.stdev(ratios) / len(ratios) ** 0.5 if len(ratios) > 1 else 0.0
    faster = sum(r > 1 for r in ratios)
    print(f"{label}: B/A {mean:.3f} ± {err:.3f} (standard error), "
          f"B faster in {faster} of {len(ratios)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="first binary (the reference)")
    ap.add_argument("b", help="second binary (the change)")
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--rounds", type=int, default=20, help="rounds in each order")
    args = ap.parse_args()
    orders = {"A first": [], "B first": []}
    for label, ratios in orders.items():
        for i in range(args.rounds):
            first, second = (args.a, args.b) if label == "A first" else (args.b, args.a)
            n1, s1 = bench(first, args.depth)
            n2, s2 = bench(second, args.depth)
            if n1 != n2:
                raise SystemExit(f"different trees: {n1} and {n2} nodes")
            sa, sb = (s1, s2) if label == "A first" else (s2, s1)
            ratios.append(sb / sa)
            print(f"{label} {i + 1}: {n1} nodes, A {sa} nps, B {sb} nps, B/A {sb / sa:.3f}",
                  flush=True)
    for label, ratios in orders.items():
        summary(label, ratios)
    summary("both orders", orders["A first"] + orders["B first"])


if __name__ == "__main__":
    main()
