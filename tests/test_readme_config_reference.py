"""The docs' configuration reference names every key the schema accepts, with its default.

The reference is docs/configuration.md (the documentation site's "Configuration reference"); the outside
agents' keys (`[agent.http]`, `[agent.subprocess]`) are in docs/agents.md's table. Both are read.

Rows look like ``| `[run] sample`, `sample_seed` | 0, 42 | meaning |``: the first cell names a table and
its keys, the second their defaults in the same order. A key added to `config_schema.py` without a row,
or a numeric default changed on one side only, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from benchmarker.config_schema import Price, RunConfig

DOCS = Path(__file__).parents[1] / "docs"
REFERENCE = [DOCS / "configuration.md", DOCS / "agents.md"]   # the first row naming a key wins


def schema_keys(model: type[BaseModel] = RunConfig, table: str = "") -> dict[tuple[str, str], object]:
    """(table, key) -> default for every leaf key; `[prices."<model>"]` holds Price's keys."""
    keys: dict[tuple[str, str], object] = {}
    for name, field in model.model_fields.items():
        sub = field.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            keys |= schema_keys(sub, f"{table}.{name}".lstrip("."))
        elif (table, name) == ("", "prices"):
            keys |= {("prices", k): f.get_default() for k, f in Price.model_fields.items()}
        else:
            keys[(table, name)] = field.get_default(call_default_factory=True)
    return keys


def reference_rows() -> dict[tuple[str, str], tuple[int, int, str]]:
    """(table, key) -> (position among the row's keys, number of keys, the defaults cell)."""
    rows: dict[tuple[str, str], tuple[int, int, str]] = {}
    lines = [line for page in REFERENCE for line in page.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if not line.startswith("| `") or len(cells) < 3:
            continue
        tables, keys = [], []
        for token in re.findall(r"`([^`]+)`", cells[0]):
            head = re.match(r'\[([^\]]+)\]\s*(\S*)', token)
            if head:
                tables.append(re.sub(r'\."[^"]*"', "", head[1]))
                if head[2]:
                    keys.append(head[2])
            else:
                keys.append(token)
        for table in tables or [""]:
            for i, key in enumerate(keys):
                rows.setdefault((table, key), (i, len(keys), cells[1]))
    return rows


def test_every_config_key_is_in_the_docs_reference() -> None:
    rows = reference_rows()
    missing = [f"[{t}] {k}" if t else k for t, k in schema_keys() if (t, k) not in rows]
    assert not missing, f"docs/configuration.md's reference lacks: {', '.join(missing)}"


def suite_option_keys() -> dict[tuple[str, str], object]:
    """("dataset", key) -> default for every built-in suite's own `[dataset]` key (suites/<name>/options.py)."""
    from benchmarker.registry import SUITES, suite

    models = [model for kind in list(SUITES) if (model := suite(kind).data.options)]
    return {("dataset", key): field.get_default(call_default_factory=True) for model in models
            for key, field in model.model_fields.items()}


def test_numeric_defaults_match_the_schema() -> None:
    rows = reference_rows()
    wrong = []
    for (table, key), default in (schema_keys() | suite_option_keys()).items():
        if isinstance(default, bool) or not isinstance(default, int | float) or (table, key) not in rows:
            continue
        i, n, cell = rows[(table, key)]
        parts = [p.strip() for p in cell.split(",")]
        said = parts[i] if len(parts) == n else cell
        numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", said.replace("_", ""))]
        if float(default) not in numbers:
            wrong.append(f"[{table}] {key}: schema {default!r}, docs {said!r}")
    assert not wrong, "\n".join(wrong)


def test_every_suite_dataset_key_is_in_the_docs_reference() -> None:
    """A suite's own `[dataset]` keys (BEAM's `chats`, LoCoMo's `conversations`) are in the reference too."""
    from benchmarker.registry import SUITES, suite

    rows = reference_rows()
    options = {kind: suite(kind).data.options for kind in list(SUITES)}
    missing = [f"[dataset] {key} ({kind})" for kind, model in options.items() if model
               for key in model.model_fields if ("dataset", key) not in rows]
    assert not missing, f"docs/configuration.md's reference lacks: {', '.join(missing)}"
