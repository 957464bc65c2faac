#!/usr/bin/env python3
"""How fast the engine answers while many threads search.

For each thread count: `stop` -> `bestmove` during `go infinite`, the
overrun of `go movetime`, and `isready` -> `readyok` during a search. Each
figure is the worst of several tries, in milliseconds. Only the standard
library is needed.

    python3 tools/threads_bench.py target/release/brudno
    python3 tools/threads_bench.py target/release/brudno --threads 1,64,256 --tries 10
"""

import argparse
import queue
import subprocess
import threading
import time


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put((time.perf_counter(), line.strip()))

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return time.perf_counter()

    def wait_for(self, prefix, timeout=60.0):
        deadline = time.perf_counter() + timeout
        while True:
            t, line = self.q.get(timeout=max(0.0, deadline - time.perf_counter()))
            if line.startswith(prefix):
                return t

    def sync(self):
        self.send("isready")
        self.wait_for("readyok")

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=30)


def measure(path, threads, tries, movetime):
    e = Engine(path)
    e.send("uci")
    e.wait_for("uciok")
    e.send(f"setoption name Threads value {threads}")
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6")
    e.sync()
    stop, overrun, ready = [], [], []
    for _ in range(tries):
        e.send("go infinite")
        time.sleep(0.3)
        sent = e.send("isready")
        ready.append(e.wait_for("readyok") - sent)
        time.sleep(0.2)
        sent = e.send("stop")
        stop.append(e.wait_for("bestmove") - sent)
        sent = e.send(f"go movetime {movetime}")
        overrun.append(e.wait_for("bestmove") - sent - movetime / 1000)
    e.quit()
    return max(stop) * 1000, max(overrun) * 1000, max(ready) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("--threads", default="1,2,8,32,64,128,256")
    ap.add_argument("--tries", type=int, default=5)
    ap.add_argument("--movetime", type=int, default=1000)
    a = ap.parse_args()
    print("threads  stop->bestmove  movetime overrun  isready->readyok   (worst of %d, ms)"
          % a.tries)
    for n in [int(x) for x in a.threads.split(",")]:
        s, o, r = measure(a.engine, n, a.tries, a.movetime)
        print(f"{n:7d}  {s:14.1f}  {o:16.1f}  {r:16.1f}", flush=True)


if __name__ == "__main__":
    main()
