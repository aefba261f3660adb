"""The masking rules have one copy, embedded_memory/masking.py: benchmarker/redact.py imports them and defines
only what the harness alone needs, so the two sides of the fence cannot drift apart again (issue 46: 94 lines
used to be stated twice)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "benchmarker" / "redact.py"
SERVICE = ROOT / "embedded_memory" / "masking.py"


def defined_names(source: str) -> set[str]:
    """The names a module binds at its top level by a def, a class or an assignment (imports excluded)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_harness_states_no_rule_the_service_states():
    harness = defined_names(HARNESS.read_text(encoding="utf-8"))
    service = defined_names(SERVICE.read_text(encoding="utf-8"))
    assert {"MASK", "is_secret_name", "mask", "clean_cut", "redacted_terminal"} <= service
    assert harness & service == set()


def test_the_checker_sees_a_second_copy():
    copy = 'MASK = "***"\nLIMIT: int = 8\ndef is_secret_name(name):\n    return False\nclass RedactingStream: ...\n'
    assert defined_names(copy) == {"MASK", "LIMIT", "is_secret_name", "RedactingStream"}
    assert defined_names("from embedded_memory.masking import MASK, mask\n") == set()


def test_the_harness_masks_with_the_services_rules(monkeypatch):
    from benchmarker import redact
    from embedded_memory import masking

    monkeypatch.setenv("HARNESS_API_KEY", "k3y-value-0123456789")
    text = "GET https://u:pw@host/x?token=abc&q=1 with k3y-value-0123456789 and Bearer abcdefghijkl"
    expected = "GET https://***@host/x?token=***&q=1 with *** and Bearer ***"
    assert masking.redact_text(text) == redact.redact_text(text) == expected
    assert redact.redact({"api_key": "short", "note": text}) == {"api_key": "***", "note": expected}
    cut = masking.clean_cut("see k3y-value-0123456789", 10)
    assert cut == redact.clean_cut("see k3y-value-0123456789", 10) == "see "
