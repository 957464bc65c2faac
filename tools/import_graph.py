#!/usr/bin/env python3
"""Prints the crate's module graph from its `use crate::` lines (those
outside `#[cfg(test)]` blocks) and checks it: no circle, and no module
imports one of a higher layer.

    python3 tools/import_graph.py          # the graph, then the verdict
    python3 tools/import_graph.py --dot    # the graph for Graphviz

Layers, bottom first (a module may import its own layer or lower ones):
board and the leaf modules, then hce and nnue, eval, search, engine and
threads, the tools and uci, and main with its command line on top.
Exit status 1 when a circle or an upward import is found.
"""

import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

LAYERS = [
    ["board", "score", "movegen", "time"],
    ["hce", "nnue", "tt", "tablebase"],
    ["eval"],
    ["search"],
    ["engine", "threads"],
    ["bench", "perft", "epd", "datagen", "data", "train", "tune", "uci"],
    ["cli", "main"],
]
LAYER = {m: i for i, names in enumerate(LAYERS) for m in names}


def module_of(path):
    """The module a source file belongs to, as the layers name them."""
    parts = path.relative_to(SRC).with_suffix("").parts
    if parts[0] == "eval" and len(parts) > 1 and parts[1] == "hce":
        return "hce"
    return "main" if parts[0] == "main" else parts[0]


def target_of(path_text):
    """The module a `crate::a::b` path imports from."""
    parts = path_text.split("::")
    if parts[0] == "eval" and len(parts) > 1 and parts[1] == "hce":
        return "hce"
    return parts[0]


def without_tests(text):
    """The text with every `#[cfg(test)]` item (a block or one line) cut."""
    out, i = [], 0
    while True:
        j = text.find("#[cfg(test)]", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = j + len("#[cfg(test)]")
        brace, semi = text.find("{", k), text.find(";", k)
        if semi >= 0 and (brace < 0 or semi < brace):
            i = semi + 1
            continue
        depth, p = 0, brace
        while p < len(text):
            if text[p] == "{":
                depth += 1
            elif text[p] == "}":
                depth -= 1
                if depth == 0:
                    break
            p += 1
        i = p + 1


def edges():
    found = {}
    for path in sorted(SRC.rglob("*.rs")):
        if path.name == "tests.rs":
            continue  # a test module in a file of its own
        source = module_of(path)
        text = without_tests(path.read_text())
        for m in re.finditer(r"\bcrate::([a-z_]+(?:::[a-z_]+)?)", text):
            target = target_of(m.group(1))
            if target != source:
                found.setdefault((source, target), set()).add(str(path.relative_to(SRC)))
    return found


def circles(graph):
    """Every module that lies on a circle."""
    adjacency = {}
    for a, b in graph:
        adjacency.setdefault(a, set()).add(b)
    on_circle = set()
    for start in adjacency:
        stack, seen = [start], set()
        while stack:
            node = stack.pop()
            for nxt in adjacency.get(node, ()):
                if nxt == start:
                    on_circle.add(start)
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return on_circle


def main():
    graph = edges()
    if "--dot" in sys.argv:
        print("digraph brudno {")
        for a, b in sorted(graph):
            print(f'  "{a}" -> "{b}";')
        print("}")
        return 0
    bad = 0
    for (a, b), files in sorted(graph.items()):
        upward = LAYER.get(b, 0) > LAYER.get(a, 0)
        mark = "  UPWARD" if upward else ""
        print(f"{a:9} -> {b:9} ({', '.join(sorted(files))}){mark}")
        bad += upward
    unknown = {m for edge in graph for m in edge if m not in LAYER}
    for m in sorted(unknown):
        print(f"module {m} has no layer")
    on_circle = circles(graph)
    if on_circle:
        print("circle through: " + ", ".join(sorted(on_circle)))
    print(f"{len(graph)} imports; {bad} upward; {'a circle' if on_circle else 'no circle'}")
    return 1 if bad or on_circle or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
