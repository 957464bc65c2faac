#!/usr/bin/env python3
"""Writes balanced match openings: random plies from the start position,
kept when a short search by the engine scores them within a margin.

    pip install chess
    python3 tools/make_openings.py target/release/brudno --count 200 --out epd/openings.epd

epd/openings.epd was made with the defaults (seed 2026).
"""

import argparse
import random

import chess
import chess.engine


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--plies", type=int, default=8)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--margin", type=int, default=50, help="centipawns")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default="epd/openings.epd")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    seen, kept = set(), []
    with chess.engine.SimpleEngine.popen_uci(a.engine) as engine:
        while len(kept) < a.count:
            board = chess.Board()
            for _ in range(a.plies):
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
            if board.is_game_over() or board.is_check():
                continue
            epd = board.epd()
            if epd in seen:
                continue
            seen.add(epd)
            info = engine.analyse(board, chess.engine.Limit(depth=a.depth))
            score = info["score"].white().score()
            if score is not None and abs(score) <= a.margin:
                kept.append(epd)
    with open(a.out, "w") as f:
        f.writelines(e + "\n" for e in kept)
    print(f"{len(kept)} openings of {len(seen)} tried written to {a.out}")


if __name__ == "__main__":
    main()
