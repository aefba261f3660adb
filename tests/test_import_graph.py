"""Data flows one way: no folder of `benchmarker` imports a folder that imports it back."""

from __future__ import annotations

from bench.import_graph import cycles, file_graph, folder_graph, strongly_connected

# Earlier stages never import later ones (STYLE.md: "no module imports from a later stage").
STAGES = ("errors", "redact", "registry", "tool_mapping", "metric_names", "datasets", "config_schema", "config", "log", "memory", "agent",
          "subjects", "eval", "suites", "graph", "run", "view", "cli")


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


def test_the_file_checker_sees_a_cycle_through_a_third_module():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]
