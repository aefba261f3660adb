"""The folder-level import graph of `benchmarker` (every import, module- or function-level, except
under `if TYPE_CHECKING:`), and its cycles. `make import-graph`; tests/test_import_graph.py
asserts there are none."""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "benchmarker"


def unit_of(module: str) -> str:
    """`benchmarker.graph.self_improve.x` -> `graph`; a top-level module is its own unit."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "benchmarker"


def _runtime_imports(tree: ast.AST) -> list[str]:
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return [m for m in found if m == "benchmarker" or m.startswith("benchmarker.")]


def folder_graph(root: Path = ROOT) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        source = "benchmarker" if parts == ("__init__",) else parts[0]
        for target in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            dest = unit_of(target)
            if dest != source and target != "benchmarker":
                edges[source].add(dest)
    return dict(edges)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle's smallest representative (the graph has a dozen nodes)."""
    found: set[tuple[str, ...]] = set()

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in edges.get(node, ()):
            if nxt == start:
                i = path.index(min(path))
                found.add(tuple(path[i:] + path[:i]))
            elif nxt not in path and nxt > start:
                walk(start, nxt, path + [nxt])

    for start in edges:
        walk(start, start, [start])
    return [list(c) for c in sorted(found)]


def main() -> int:
    edges = folder_graph()
    for source in sorted(edges):
        print(f"{source:>14} -> {', '.join(sorted(edges[source]))}")
    loops = cycles(edges)
    print("cycles:", "none" if not loops else "; ".join(" -> ".join(c + [c[0]]) for c in loops))
    return 1 if loops else 0


if __name__ == "__main__":
    sys.exit(main())
