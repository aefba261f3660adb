"""The folder-level and file-level import graphs of `benchmarker` (every import, module- or
function-level, except under `if TYPE_CHECKING:`), and their cycles. `python bench/import_graph.py`;
tests/test_import_graph.py asserts there are none."""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "benchmarker"
# The embedded memory service is a top-level package of its own that imports nothing of benchmarker: one unit,
# below every stage (tests/test_import_graph.py checks its side of the fence).
SERVICE = "embedded_memory"


def unit_of(module: str) -> str:
    """`benchmarker.graph.self_improve.x` -> `graph`; a top-level module is its own unit; `embedded_memory.x`
    -> `embedded_memory`."""
    parts = module.split(".")
    if parts[0] == SERVICE:
        return SERVICE
    return parts[1] if len(parts) > 1 else "benchmarker"


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, at any depth, except those under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


_MODULE_PATH = re.compile(r"benchmarker(?:\.[A-Za-z_]\w*)*(?::[\w.]+)?")


def _module_strings(tree: ast.AST) -> list[str]:
    """In a module that loads code by name (it calls `import_module` or `iter_modules`), the modules it
    names in strings outside its docstrings ("benchmarker.x", a package to scan, "module:attribute"):
    a hidden import is still an import. Elsewhere such strings name package data (resources.files)."""
    loads = any(isinstance(node, ast.Call) and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
                in ("import_module", "iter_modules") for node in ast.walk(tree))
    if not loads:
        return []
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value.partition(":")[0] for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and _MODULE_PATH.fullmatch(node.value)]


def _runtime_imports(tree: ast.AST) -> list[str]:
    found: list[str] = _module_strings(tree)
    for node in _import_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [m for m in found if m == "benchmarker" or m.startswith("benchmarker.") or m.split(".")[0] == SERVICE]


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


def _imported_modules(tree: ast.AST, modules: set[str]) -> list[str]:
    """Like `_runtime_imports`, but `from pkg import submodule` names the submodule, not the package."""
    found: list[str] = _module_strings(tree)
    for node in _import_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [m for m in found if m.startswith("benchmarker.")]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = ("benchmarker", *path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def file_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package modules it imports (module- or function-level; not under TYPE_CHECKING)."""
    modules = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for target in _imported_modules(ast.parse(path.read_text(encoding="utf-8")), set(modules)):
            if target in modules and target != name:
                edges[name].add(target)
    return dict(edges)


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan); only groups
    of two or more, each sorted, largest first. An empty list means no file-level import cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(set(edges) | {n for targets in edges.values() for n in targets}):
        if node not in index:
            connect(node)
    return sorted(groups, key=lambda g: (-len(g), g))


def main() -> int:
    edges = folder_graph()
    for source in sorted(edges):
        print(f"{source:>14} -> {', '.join(sorted(edges[source]))}")
    loops = cycles(edges)
    print("cycles:", "none" if not loops else "; ".join(" -> ".join(c + [c[0]]) for c in loops))
    tangles = strongly_connected(file_graph())
    print("file-level cycles:", "none" if not tangles else "")
    for group in tangles:
        print(f"  {len(group)} files: {', '.join(group)}")
    return 1 if loops or tangles else 0


if __name__ == "__main__":
    sys.exit(main())
