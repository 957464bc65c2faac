#!/usr/bin/env python3
"""Games with pondering: Brudno thinks on the opponent's time, as a GUI or
lichess-bot lets it, and the games are checked the way a tournament director
would check them (time losses, illegal moves, crashes).

After each of its moves the engine is sent `go ponder` on its predicted
reply; when the opponent plays that move it gets `ponderhit`, otherwise
`stop` and a new `go`. python-chess drives that exchange (`play(...,
ponder=True)`), so the protocol is the one GUIs speak.

    python3 tools/ponder_games.py --engine target/release/brudno \\
        --opponent /usr/games/glaurung --tc 8+0.08 --games 20 \\
        --openings ../shared/openings/noob_3moves_10k.epd

The engine ponders, so it needs a core of its own while the opponent thinks:
run one instance at a time on a 2-core machine. Needs `pip install chess`.
"""

import argparse
import random
import time

import chess
import chess.engine


def load_openings(path, seed):
    fens = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4:
                fens.append(" ".join(fields[:4]) + " 0 1")
    random.Random(seed).shuffle(fens)
    return fens


def play_game(engines, ponders, fen, base, inc, margin, game_id, hits):
    """Plays one game; `engines[c]` moves for colour c. Returns (result,
    reason); counts the opponent's moves after a ponder move, and how many
    were the predicted one, in `hits`."""
    board = chess.Board(fen)
    predicted = None
    clocks = {chess.WHITE: base, chess.BLACK: base}
    while not board.is_game_over(claim_draw=True):
        side = board.turn
        limit = chess.engine.Limit(
            white_clock=max(clocks[chess.WHITE], 0.001),
            black_clock=max(clocks[chess.BLACK], 0.001),
            white_inc=inc,
            black_inc=inc,
        )
        start = time.monotonic()
        try:
            result = engines[side].play(board, limit, game=game_id, ponder=ponders[side])
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as e:
            return ("0-1" if side == chess.WHITE else "1-0"), f"crash or protocol error: {e}"
        clocks[side] -= time.monotonic() - start
        if clocks[side] < -margin:
            return ("0-1" if side == chess.WHITE else "1-0"), "time forfeit"
        clocks[side] += inc
        if result.move is None or result.move not in board.legal_moves:
            return ("0-1" if side == chess.WHITE else "1-0"), f"illegal move {result.move}"
        if not ponders[side] and predicted is not None:
            hits[0] += 1
            hits[1] += int(predicted == result.move)
        if ponders[side]:
            predicted = result.ponder
        board.push(result.move)
        if board.ply() > 600:
            return "1/2-1/2", "adjudicated: too long"
    outcome = board.outcome(claim_draw=True)
    return outcome.result(), outcome.termination.name.lower()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="the pondering engine")
    ap.add_argument("--opponent", required=True, help="a UCI opponent (no pondering)")
    ap.add_argument("--tc", default="8+0.08")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--openings", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--margin", type=float, default=0.05, help="seconds of overrun tolerated")
    args = ap.parse_args()
    base, inc = (float(x) for x in args.tc.split("+"))
    fens = load_openings(args.openings, args.seed)

    me = chess.engine.SimpleEngine.popen_uci(args.engine.split())
    me.configure({"Hash": 16})  # python-chess sets Ponder itself
    opp = chess.engine.SimpleEngine.popen_uci(args.opponent.split())
    opp.configure({"Hash": 16})
    score = {"w": 0, "d": 0, "l": 0}
    reasons = {}
    hits = [0, 0]
    try:
        for g in range(args.games):
            fen = fens[g // 2 % len(fens)]
            me_white = g % 2 == 0
            engines = {chess.WHITE: me if me_white else opp, chess.BLACK: opp if me_white else me}
            ponders = {chess.WHITE: me_white, chess.BLACK: not me_white}
            # A new game object makes python-chess send `ucinewgame` (and
            # stop a search still pondering on the last game).
            result, reason = play_game(engines, ponders, fen, base, inc, args.margin, g, hits)
            mine = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            if not me_white:
                mine = 1.0 - mine
            score["w" if mine == 1.0 else "l" if mine == 0.0 else "d"] += 1
            who = "engine" if (mine == 0.0) else "opponent" if mine == 1.0 else "-"
            key = f"{reason} (lost by {who})" if who != "-" else reason
            reasons[key] = reasons.get(key, 0) + 1
            print(f"game {g + 1}: {'white' if me_white else 'black'} {result} {reason}", flush=True)
    finally:
        me.quit()
        opp.quit()
    print(f"W-D-L {score['w']}-{score['d']}-{score['l']}", flush=True)
    print(f"ponder moves predicted: {hits[1]} of {hits[0]} replies", flush=True)
    print(f"terminations: {dict(sorted(reasons.items()))}", flush=True)


if __name__ == "__main__":
    main()
