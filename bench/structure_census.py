"""The structure figures of issue 46, measured on the source tree (`python bench/structure_census.py`).

Each figure is one a reviewer would otherwise count by hand: the `Suite` base's attributes and hooks,
suite lookups by kind outside the places a file on disk is the start, open dicts per 1,000 lines,
functions that take the whole `RunConfig`, the lines of `run/`, and file-level import cycles (counting
`TYPE_CHECKING` imports). Printed as JSON, so a closing note quotes it rather than a guess.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "benchmarker"
# Where a lookup by kind is the start (a file on disk names the kind) or the registry itself.
LOOKUP_HOMES = ("benchmarker/suites/", "benchmarker/registry.py", "benchmarker/commands/", "benchmarker/view/")
LOOKUP_CALLS = {"suite_of_record", "suite_of", "get_suite", "suites_of", "suites_of_results", "named", "of_kinds"}
OPEN_DICT = re.compile(r"\b(?:dict|Dict|Mapping|MutableMapping)\[str, ?(?:Any|object)\]")
CONFIG_NAMES = {"config", "cfg", "run_config"}


def _sources(root: Path = PACKAGE) -> list[Path]:
    return sorted(root.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def suite_members(path: Path = PACKAGE / "suites" / "base.py") -> dict[str, int]:
    """The `Suite` value's fields (`attributes`: annotated names in its class body; each is a part, a name or an
    optional part) and its methods (`hooks`: functions and properties in that body, 0 once every hook moved into a
    part). Before issue 46 they were class attributes and overridable methods: 14 and 20 then."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Suite")
    attrs = sum(isinstance(n, (ast.AnnAssign, ast.Assign)) for n in cls.body)
    hooks = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in cls.body)
    return {"attributes": attrs, "hooks": hooks}


def kind_lookups() -> list[str]:
    """Calls that find a suite by a kind string outside suites/, the registry, commands/ and view/."""
    found: list[str] = []
    for path in _sources():
        rel = _rel(path)
        if rel.startswith(LOOKUP_HOMES):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in LOOKUP_CALLS or (name == "suite" and node.args):
                    found.append(f"{rel}:{node.lineno}")
    return found


ALIAS = re.compile(r"^(\w+)(?:: TypeAlias)? = (dict\[str, Any\])\s*$", re.MULTILINE)


def _alias_uses(text: str) -> int:
    """Uses of a module's own `Name = dict[str, Any]` alias (the definition itself is counted once, as written)."""
    uses = 0
    for name, _ in ALIAS.findall(text):
        code = [line for line in text.splitlines() if not line.lstrip().startswith(("from ", "import ", "#"))]
        uses += sum(len(re.findall(rf"(?<![\w.]){name}\b", line)) for line in code) - 1
    return uses


def _imported_alias_uses(text: str, aliases: set[str]) -> int:
    """Uses, in a module that imports it, of another module's `dict[str, Any]` alias."""
    uses = 0
    for name in aliases:
        if re.search(rf"^from [\w.]+ import .*\b{name}\b", text, re.MULTILINE):
            code = [line for line in text.splitlines() if not line.lstrip().startswith(("from ", "import ", "#"))]
            uses += sum(len(re.findall(rf"(?<![\w.]){name}\b", line)) for line in code)
    return uses


def open_dicts() -> dict[str, float | int]:
    """`dict[str, Any]` (and Mapping / `object` spellings) per 1,000 lines; `dict_str_any_with_aliases` also
    counts each use of a `Record = dict[str, Any]`-style alias, so renaming the type cannot lower the figure."""
    lines = hits = any_only = 0
    texts = {path: path.read_text(encoding="utf-8") for path in _sources()}
    aliases = {name for text in texts.values() for name, _ in ALIAS.findall(text)}
    alias_uses = 0
    for text in texts.values():
        lines += text.count("\n")
        hits += len(OPEN_DICT.findall(text))
        any_only += text.count("dict[str, Any]")
        own = {name for name, _ in ALIAS.findall(text)}
        alias_uses += _alias_uses(text) + _imported_alias_uses(text, aliases - own)
    return {"lines": lines, "open_dicts": hits, "dict_str_any": any_only,
            "open_dicts_per_1000": round(1000 * hits / lines, 2),
            "dict_str_any_per_1000": round(1000 * any_only / lines, 2),
            "dict_str_any_aliases": sorted(aliases), "alias_uses": alias_uses,
            "dict_str_any_with_aliases_per_1000": round(1000 * (any_only + alias_uses) / lines, 2)}


def _takes_config(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[bool, bool]:
    """(takes the whole config, typed as RunConfig)."""
    for arg in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
        note = ast.unparse(arg.annotation) if arg.annotation else ""
        if "RunConfig" in note:
            return True, True
        if arg.arg in CONFIG_NAMES and note in ("", "Any"):
            return True, False
    return False, False


def whole_config_functions() -> dict[str, object]:
    typed = untyped = 0
    files: dict[str, int] = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                takes, is_typed = _takes_config(node)
                if takes:
                    typed += is_typed
                    untyped += not is_typed
                    files[_rel(path)] = files.get(_rel(path), 0) + 1
    return {"functions": typed + untyped, "typed": typed, "untyped_or_any": untyped, "files": len(files),
            "by_file": dict(sorted(files.items(), key=lambda kv: -kv[1]))}


def folder_lines(folder: str) -> int:
    return sum(p.read_text(encoding="utf-8").count("\n") for p in _sources(PACKAGE / folder))


def file_cycles_with_type_checking() -> list[list[str]]:
    sys.path.insert(0, str(ROOT / "bench"))
    import import_graph as graph  # a sibling script, not a package

    def every_import(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
        return [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]

    graph._import_nodes = every_import  # count TYPE_CHECKING imports too
    return graph.strongly_connected(graph.file_graph())


def census() -> dict[str, object]:
    lookups = kind_lookups()
    return {"suite": suite_members(), "kind_lookups_outside_homes": len(lookups), "kind_lookup_sites": lookups,
            "open_dicts": open_dicts(), "whole_config": whole_config_functions(),
            "run_lines": folder_lines("run"), "file_cycles_incl_type_checking": file_cycles_with_type_checking()}


if __name__ == "__main__":
    print(json.dumps(census(), indent=1))
