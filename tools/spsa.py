#!/usr/bin/env python3
"""SPSA tuning of Brudno's search parameters on one machine, with fastchess.

The engine must be the `spsa` build (`cargo build --release --features spsa`),
whose `brudno spsa` lists the parameters as OpenBench's SPSA input (`name,
int, value, min, max, c_end, r_end`). Each iteration perturbs every chosen
parameter by +c or -c at random, plays game pairs between the two engines
(the same opening, colours swapped) with fastchess, and moves the values
towards the side that scored better; the gains follow OpenBench's schedule
(alpha 0.602, gamma 0.101, A a tenth of the iterations, c falling to c_end
and the learning rate to r_end at the last iteration). Standard library only.

    cargo build --release --features spsa --target-dir target/spsa
    python3 tools/spsa.py target/spsa/release/brudno --iterations 1000 \\
        --params rfp_margin,futility_base,lmr_base_x100 --tc 4+0.04 \\
        --openings ../shared/openings/noob_3moves_10k.epd --state spsa.json

The state file is written after every iteration and read back on start, so
an interrupted tune resumes where it stopped. The values found are printed
as the lines of `src/search/params.rs` to change; fold them in by hand and
test them against the untuned build.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ALPHA, GAMMA = 0.602, 0.101


def parameters(engine):
    """The engine's tunables: name -> (value, min, max, c_end, r_end)."""
    out = subprocess.run([engine, "spsa"], capture_output=True, text=True, check=True).stdout
    params = {}
    for line in out.splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) != 7:
            raise SystemExit(f"not an SPSA line: {line!r}")
        params[f[0]] = (float(f[2]), float(f[3]), float(f[4]), float(f[5]), float(f[6]))
    return params


def play(args, plus, minus, seed):
    """Plays --pairs game pairs, engine `plus` against `minus`; returns
    plus's points minus minus's points."""
    with tempfile.TemporaryDirectory() as tmp:
        pgn = os.path.join(tmp, "games.pgn")

        def engine(name, values):
            return ["-engine", f"cmd={args.engine}", f"name={name}"] + [
                f"option.{k}={v}" for k, v in values.items()]

        command = ([args.fastchess] + engine("plus", plus) + engine("minus", minus) +
                   ["-each", f"tc={args.tc}", "option.Hash=16", "-rounds", str(args.pairs),
                    "-games", "2", "-repeat", "-concurrency", str(args.concurrency),
                    "-openings", f"file={args.openings}", "format=epd", "order=random",
                    "-srand", str(seed), "-pgnout", f"file={pgn}"])
        # fastchess writes its settings (config.json) where it runs.
        subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp)
        text = open(pgn).read() if os.path.exists(pgn) else ""
    score = 0.0
    for game in text.split("[Event ")[1:]:
        white = re.search(r'\[White "([^"]*)"\]', game).group(1)
        result = re.search(r'\[Result "([^"]*)"\]', game).group(1)
        points = {"1-0": 1.0, "0-1": -1.0}.get(result, 0.0)
        score += points if white == "plus" else -points
    return score


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", help="the spsa build of brudno")
    ap.add_argument("--params", help="comma-separated names (default: all)")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=1, help="game pairs an iteration")
    ap.add_argument("--tc", default="4+0.04")
    ap.add_argument("--openings", default="../shared/openings/noob_3moves_10k.epd")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--fastchess", default="../shared/tools/fastchess/fastchess")
    ap.add_argument("--state", default="spsa-state.json")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--r-end", type=float,
                    help="the final learning rate of every parameter, instead of the engine's "
                         "(OpenBench's 0.002 is meant for tens of thousands of pairs; with "
                         "about 2,000 pairs, at 0.002 the values move by less than their noise)")
    args = ap.parse_args()
    # fastchess runs in a temporary directory: the paths must not be relative.
    args.engine, args.openings, args.fastchess = (
        os.path.abspath(p) for p in (args.engine, args.openings, args.fastchess))

    all_params = parameters(args.engine)
    names = args.params.split(",") if args.params else list(all_params)
    unknown = [n for n in names if n not in all_params]
    if unknown:
        raise SystemExit(f"no such parameters: {unknown}")
    if os.path.exists(args.state):
        state = json.load(open(args.state))
        if sorted(state["theta"]) != sorted(names):
            raise SystemExit(f"{args.state} tunes other parameters; pass another --state")
        settings = {"tc": args.tc, "pairs": args.pairs, "iterations": args.iterations,
                    "r_end": args.r_end, "seed": args.seed}
        if state.get("settings", settings) != settings:
            raise SystemExit(f"{args.state} was started with {state['settings']}: resume it "
                             "with the same settings (the schedule depends on them)")
        print(f"resuming at iteration {state['k']} from {args.state}")
    else:
        state = {"k": 0, "theta": {n: all_params[n][0] for n in names}, "history": [],
                 "settings": {"tc": args.tc, "pairs": args.pairs, "iterations": args.iterations,
                              "r_end": args.r_end, "seed": args.seed}}

    n = args.iterations
    big_a = 0.1 * n
    rng = random.Random(args.seed)
    for _ in range(state["k"] * (len(names) + 1)):
        rng.random()  # the same perturbations on resume as without a stop
    while state["k"] < n:
        k = state["k"]
        plus, minus, deltas, c_k = {}, {}, {}, {}
        for name in names:
            value, lo, hi, c_end, r_end = all_params[name]
            r_end = args.r_end if args.r_end is not None else r_end
            c = c_end * n ** GAMMA / (k + 1) ** GAMMA
            a = r_end * c_end ** 2 * (big_a + n) ** ALPHA / (big_a + k + 1) ** ALPHA
            delta = 1 if rng.random() < 0.5 else -1
            theta = state["theta"][name]
            plus[name] = int(round(min(hi, max(lo, theta + c * delta))))
            minus[name] = int(round(min(hi, max(lo, theta - c * delta))))
            deltas[name], c_k[name] = (delta, a), c
        score = play(args, plus, minus, seed=args.seed * 1_000_003 + k)
        rng.random()
        for name in names:
            (delta, a), c = deltas[name], c_k[name]
            _, lo, hi, _, _ = all_params[name]
            step = a * score / (c * delta)
            state["theta"][name] = min(hi, max(lo, state["theta"][name] + step))
        state["k"] = k + 1
        state["history"].append(score)
        with open(args.state + ".new", "w") as f:
            json.dump(state, f, indent=1)
        os.replace(args.state + ".new", args.state)
        shown = ", ".join(f"{nm} {state['theta'][nm]:.1f}" for nm in names)
        print(f"iteration {k + 1}/{n}: plus - minus {score:+.1f}; {shown}", flush=True)
    print("tuned values (fold into src/search/params.rs):")
    for name in names:
        default = all_params[name][0]
        print(f"    {name} = {round(state['theta'][name])}  (was {default:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
