#!/usr/bin/env python3
"""Feeds the engine random and grammar-built lines, as a hostile or buggy GUI
would, and counts what went wrong: a dead process, a panic on stderr, a hang
(no `readyok`) or a lost `bestmove`.

Batches of lines (random bytes, random words, commands with numbers of any
size, positions from random games, options with any value, engine output)
are each followed by a `go` built from the grammar, `stop`, and a plain
`go depth 1` whose `bestmove` must come. Only the standard library is needed.

    python3 tools/fuzz_uci.py target/release/brudno --lines 20000 --seed 1
"""

import argparse
import queue
import random
import subprocess
import sys
import threading
import time

WORDS = ("uci isready ucinewgame position startpos fen moves go stop ponderhit setoption "
         "name value debug on off register later wtime btime winc binc movestogo movetime "
         "depth nodes mate infinite ponder searchmoves info seldepth multipv score cp "
         "lowerbound upperbound pv bestmove id option type spin check string button default "
         "min max var d eval Hash Threads MultiPV UCI_Chess960 SyzygyPath UCI_Elo "
         "UCI_LimitStrength Skill Level Move Overhead Clear e2e4 e7e5 0000 a7a8q e1g1 "
         "e1h1 INFO GO Position").split()
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rk6/8/8/8/8/8/8/RK5R w HAha - 0 1",
]
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]


def number(rng):
    return rng.choice([
        str(rng.randint(0, 300)), str(rng.randint(0, 2**64)), str(-rng.randint(0, 10**9)),
        "9" * rng.randint(10, 40), "1e9", "abc", "", "0x10", "3.5",
    ])


def random_move(rng):
    return rng.choice(SQUARES) + rng.choice(SQUARES) + rng.choice(["", "", "", "q", "n", "x"])


def line(rng):
    kind = rng.randrange(9)
    if kind == 0:  # bytes of any kind but newline
        return bytes(rng.choice([b for b in range(256) if b != 10])
                     for _ in range(rng.randint(0, 120)))
    if kind == 1:  # words in any order
        return " ".join(rng.choice(WORDS + [number(rng)]) for _ in range(rng.randint(1, 20))).encode()
    if kind == 2:  # engine output with numbers too big for a byte
        fields = " ".join(f"{rng.choice(['depth', 'seldepth', 'multipv', 'nodes', 'score cp', 'time', 'hashfull'])} {number(rng)}"
                          for _ in range(rng.randint(1, 6)))
        return f"{rng.choice(['info', 'INFO', 'option name X type spin default'])} {fields}".encode()
    if kind == 3:  # positions, often with bad moves
        head = rng.choice(["position startpos", f"position fen {rng.choice(FENS)}",
                           f"position fen {rng.choice(FENS)[:rng.randint(0, 40)]}"])
        moves = " ".join(random_move(rng) for _ in range(rng.randint(0, 6)))
        return f"{head} moves {moves}".encode() if rng.random() < 0.7 else head.encode()
    if kind == 4:  # options with any value
        name = rng.choice(["Hash", "Threads", "MultiPV", "Move Overhead", "UCI_Chess960",
                           "UCI_Elo", "UCI_LimitStrength", "Skill Level", "SyzygyPath",
                           "SyzygyProbeDepth", "Syzygy50MoveRule", "UCI_ShowWDL",
                           "Clear Hash", "Ponder", "Nonsense"])
        value = rng.choice([number(rng), "true", "false", "", "<empty>", "/nonexistent:/tmp"])
        if name == "Hash":
            value = str(rng.randint(-5, 64))
        if name == "Threads":
            value = str(rng.randint(-1, 8))
        return f"setoption name {name} value {value}".encode()
    if kind == 5:
        return rng.choice([b"isready", b"ucinewgame", b"uci", b"d", b"eval", b"stop",
                           b"ponderhit", b"debug on", b"register later", b"", b"   "])
    if kind == 6:  # a long line
        return b"x" * rng.randint(1000, 100_000)
    if kind == 7:
        return f"perft {rng.randint(-2, 3)}".encode()
    return go_line(rng).encode()


def go_line(rng):
    parts = ["go"]
    for _ in range(rng.randint(0, 6)):
        key = rng.choice(["wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth",
                          "nodes", "mate", "infinite", "ponder", "searchmoves", "junk"])
        if key in ("infinite", "ponder", "junk"):
            parts.append(key)
        elif key == "searchmoves":
            parts += ["searchmoves"] + [random_move(rng) for _ in range(rng.randint(0, 3))]
        else:
            n = number(rng)
            # Keep searches short: a huge budget is read, then cut by `stop`.
            parts += [key, n]
    return " ".join(parts)


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.q = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        for raw in self.p.stdout:
            self.q.put(raw.decode("utf-8", "replace").strip())
        self.q.put(None)

    def _read_err(self):
        for raw in self.p.stderr:
            self.stderr.append(raw.decode("utf-8", "replace"))

    def send(self, data):
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def wait_for(self, prefix, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self.q.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return False
            if item is None:
                return False
            if item.startswith(prefix):
                return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    e = Engine(a.engine)
    sent = batches = hangs = lost = 0
    start = time.monotonic()
    while sent < a.lines and e.p.poll() is None:
        for _ in range(a.batch):
            e.send(line(rng))
            sent += 1
        e.send(go_line(rng).encode())
        e.send(b"stop")
        # A plain search from a sane position must answer.
        e.send(b"setoption name Threads value 1")
        e.send(b"setoption name UCI_Chess960 value false")
        e.send(b"position startpos")
        e.send(b"go depth 1")
        sent += 6
        if not e.wait_for("bestmove", 30):
            lost += 1
        e.send(b"isready")
        if not e.wait_for("readyok", 30):
            hangs += 1
        batches += 1
        if batches % 100 == 0:
            print(f"{sent} lines, {hangs} hangs, {lost} lost bestmoves", flush=True)
    alive = e.p.poll() is None
    if alive:
        e.send(b"quit")
        e.p.wait(timeout=30)
    panics = sum("panicked" in l for l in e.stderr)
    print(f"{sent} lines in {time.monotonic() - start:.0f} s (seed {a.seed}): "
          f"exit code {e.p.returncode}, {'alive until quit' if alive else 'DIED'}, "
          f"{panics} panics, {hangs} hangs, {lost} lost bestmoves")
    sys.exit(0 if alive and e.p.returncode == 0 and not (panics or hangs or lost) else 1)


if __name__ == "__main__":
    main()
