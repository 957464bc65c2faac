#!/usr/bin/env python3
"""How much of its clock each engine used, from a fastchess PGN.

fastchess writes each move's time in its comment (`{+0.31/12 0.105s}`) and
the time control in the `TimeControl` header (`8+0.08`). For every game and
side this adds up the move times and divides by what the clock gave that
side over the game: the base time plus one increment per move it made. It
prints, per engine, the share of the clock used (mean, median, largest), the
least time left at the end of a game, and the games lost on time.

    fastchess -engine cmd=target/release/brudno name=a -engine cmd=... name=b \\
        -each tc=1+0.01 -rounds 40 -games 2 -repeat -pgnout file=games.pgn ...
    python3 tools/clock_share.py games.pgn

Standard library only.
"""

import argparse
import re
import statistics
import sys

COMMENT = re.compile(r"\{([^}]*)\}")


def games(text):
    """(headers, movetext) for each game of a PGN."""
    for chunk in re.split(r"\n(?=\[Event )", text):
        headers = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', chunk, re.M))
        body = re.sub(r'^\[.*\]\s*$', "", chunk, flags=re.M)
        if headers:
            yield headers, body


def move_times(body):
    """The seconds of each move's comment, in order (book moves: None)."""
    times = []
    for comment in COMMENT.findall(body):
        m = re.search(r"(?:^|\s)([0-9]+(?:\.[0-9]+)?)s(?:[,\s]|$)", comment)
        times.append(float(m.group(1)) if m else None)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn")
    args = ap.parse_args()
    shares, left, forfeits = {}, {}, {}
    for headers, body in games(open(args.pgn).read()):
        tc = re.fullmatch(r"([0-9.]+)\+([0-9.]+)", headers.get("TimeControl", ""))
        if not tc or headers.get("Result", "*") == "*":
            continue
        base, inc = float(tc.group(1)), float(tc.group(2))
        # fastchess may write the base in milliseconds in some versions.
        if base > 1000:
            base, inc = base / 1000, inc / 1000
        white_first = " w " in headers.get("FEN", " w ")
        names = [headers["White"], headers["Black"]]
        if not white_first:
            names.reverse()
        used, moves = [0.0, 0.0], [0, 0]
        for i, t in enumerate(move_times(body)):
            if t is not None:
                used[i % 2] += t
                moves[i % 2] += 1
        for side in (0, 1):
            if moves[side] == 0:
                continue
            given = base + inc * moves[side]
            shares.setdefault(names[side], []).append(used[side] / given)
            left.setdefault(names[side], []).append(given - used[side])
        if "time" in headers.get("Termination", "").lower():
            loser = headers["White"] if headers["Result"] == "0-1" else headers["Black"]
            forfeits[loser] = forfeits.get(loser, 0) + 1
    if not shares:
        sys.exit("no finished games with a TimeControl header and move times")
    for name in sorted(shares):
        s = shares[name]
        print(f"{name}: {len(s)} games, share of the clock used: mean {statistics.mean(s):.2f}, "
              f"median {statistics.median(s):.2f}, largest {max(s):.2f}; least time left "
              f"{min(left[name]):.2f} s; lost on time {forfeits.get(name, 0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
