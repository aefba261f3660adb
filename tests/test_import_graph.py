"""Data flows one way: no folder of `benchmarker` imports a folder that imports it back."""

from __future__ import annotations

from bench.import_graph import cycles, file_graph, folder_graph, strongly_connected

# Earlier stages never import later ones (docs/internals.md, "The floors": each imports only from those above it).
# The embedded memory service (embedded_memory/, a top-level package of its own) is below every stage: any may
# import it and it imports none of them (test_the_embedded_service_imports_nothing_of_benchmarker).
# The suites registry sits above the suites it discovers (it loads them by name) and below everything that asks it
# for one; nothing under it (config_schema, datasets, log, scoring, reporting) names it or a suite.
# A memory server's tool mapping lives in memory/ (memory/tool_mapping.py): agent, scoring, graph and the suites
# render prompts with it from above. `verbs` (the engines of the verbs other than `run`) sits above `run`: an
# engine may import run, graph, scoring and reporting as the commands do; only `commands` and `cli` import it.
STAGES = ("embedded_memory", "errors", "redact", "registry_base", "metric_names", "token_count", "datasets",
          "config_schema", "log", "memory", "agent", "subjects", "scoring", "reporting", "suites", "registry", "score",
          "config", "graph", "run", "verbs", "view", "commands", "cli")


def test_no_folder_level_import_loop():
    assert cycles(folder_graph()) == []


def test_imports_point_to_earlier_stages_only():
    order = {name: i for i, name in enumerate(STAGES)}
    backwards = [(src, dest) for src, dests in folder_graph().items() for dest in dests
                 if src in order and dest in order and order[dest] > order[src]]
    assert backwards == []


def test_the_checker_sees_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_file_level_import_cycle():
    assert strongly_connected(file_graph()) == []


def test_no_file_level_import_cycle_even_through_type_checking_imports(monkeypatch):
    """A cycle hidden under `if TYPE_CHECKING:` still ties two files together (run/replay.py and run/runner.py
    did until the replay verb moved to verbs/): the import is there, only its execution is deferred."""
    import ast

    import bench.import_graph as graph

    monkeypatch.setattr(graph, "_import_nodes", lambda tree: [node for node in ast.walk(tree)
                                                               if isinstance(node, (ast.Import, ast.ImportFrom))])
    assert strongly_connected(file_graph()) == []


def test_the_file_checker_sees_a_cycle_through_a_third_module():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]


def _benchmarker_imports(source: str, package: str) -> list[str]:
    """The `benchmarker` modules a module of `package` names: in an import at any depth (absolute or relative),
    or as a module-path string (importlib.import_module, `python -m`, resources.files, "module:attr")."""
    import ast
    import re

    module_path = re.compile(r"benchmarker(?:\.[A-Za-z_]\w*)*(?::[\w.]+)?")

    def harness(name: str) -> bool:
        return name == "benchmarker" or name.startswith("benchmarker.")

    named: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                prefix = ".".join(parts[:len(parts) - (node.level - 1)])
                base = f"{prefix}.{base}" if base else prefix
            named += [base] if node.module else [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and module_path.fullmatch(node.value):
            named.append(node.value.split(":")[0])
    return sorted({name for name in named if harness(name)})


def test_the_embedded_service_imports_nothing_of_benchmarker():
    """embedded_memory is a top-level package of its own, so its fence is the package boundary: the harness
    imports it and hands it settings, never the reverse."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "embedded_memory").rglob("*.py"))
    assert len(files) > 10
    found = {}
    for path in files:
        relative = path.relative_to(root)
        names = _benchmarker_imports(path.read_text(encoding="utf-8"), ".".join(relative.parent.parts))
        if names:
            found[str(relative)] = names
    assert found == {}


def test_the_service_import_checker_sees_every_form():
    package = "embedded_memory.sub"
    code = ("import benchmarker.redact\nfrom benchmarker import __version__\nfrom embedded_memory import x\n"
            "from . import store\nfrom .. import limits\nfrom ..lifeline import watch\n"
            "def f():\n    from benchmarker.config_schema import MYCELIAN_TITLE\n"
            "    importlib.import_module('benchmarker.memory.launch')\n"
            "    run([sys.executable, '-m', 'embedded_memory', '-m', 'benchmarker.cli'])\n"
            "    files('benchmarker.memory')\n")
    assert _benchmarker_imports(code, package) == [
        "benchmarker", "benchmarker.cli", "benchmarker.config_schema", "benchmarker.memory",
        "benchmarker.memory.launch", "benchmarker.redact"]


def test_what_the_service_states_again_matches_the_harness(monkeypatch):
    """The service states Mycelian's title rule itself (config_schema keeps its own, equal), and its masking is
    the one copy: benchmarker.redact's rules are the service's objects, not a second copy, so both mask the
    same texts the same way."""
    import os

    from benchmarker import config_schema, redact
    from embedded_memory import masking, validation

    assert validation.MYCELIAN_TITLE.pattern == config_schema.MYCELIAN_TITLE.pattern
    for name in ("MASK", "MIN_SECRET_LEN", "NOT_SECRET_VARS", "is_secret_name", "mask", "env_secrets", "redact_text",
                 "clean_cut", "RedactingFilter", "RedactingStream", "redacting_excepthook", "redacted_terminal"):
        assert getattr(redact, name) is getattr(masking, name), name

    monkeypatch.setenv("EMBEDDER_API_KEY", "sk-embed-0123456789/+=")
    monkeypatch.setenv("SHORT_TOKEN", "abc")
    texts = ["key sk-embed-0123456789/+= and sk-embed-0123456789%2F%2B%3D", "SHORT_TOKEN=abc",
             "GET https://user:pa/ss@embed.example/v1?model=m&api_key=xyz&x=1", "Authorization: Bearer abcdefghijk",
             "http://host/users/@me", f"cwd {os.getcwd()}"]
    for text in texts:
        assert masking.redact_text(text) == redact.redact_text(text), text
    assert "sk-embed" not in masking.redact_text(texts[0]) and "pa/ss" not in masking.redact_text(texts[2])


def _argparse_uses(source: str) -> list[str]:
    """Where a module imports argparse or names its Namespace (an annotation, a call, an attribute)."""
    import ast

    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if alias.name.split(".")[0] == "argparse"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "argparse":
            found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Name) and node.id == "Namespace" or \
                isinstance(node, ast.Attribute) and node.attr == "Namespace":
            found.append(f"Namespace at line {node.lineno}")
        elif isinstance(node, ast.Constant) and node.value in ("Namespace", "argparse.Namespace"):  # a string annotation
            found.append(f"'{node.value}' at line {node.lineno}")
    return found


def test_verb_engines_take_typed_arguments_not_argparse():
    """argparse lives in commands/: a verb engine takes a typed arguments value the command builds."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "benchmarker" / "verbs").rglob("*.py"))
    assert len(files) > 5
    found = {str(path.relative_to(root)): uses for path in files
             if (uses := _argparse_uses(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_argparse_checker_sees_every_form():
    code = ("import argparse\nfrom argparse import Namespace\n"
            "def run(args: argparse.Namespace) -> int: ...\ndef go(args: 'Namespace') -> None: ...\n")
    assert _argparse_uses(code) == ["import argparse", "from argparse import ...", "Namespace at line 3",
                                    "'Namespace' at line 4"]
