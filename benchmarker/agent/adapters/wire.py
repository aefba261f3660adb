"""The published wire schemas, loaded from the package and used to check every reply.

The JSON Schema files in `schemas/` are the single source: an agent author in any language
reads them, and the adapters validate replies against the same files, so the documentation
cannot drift from what the harness accepts.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Literal

from jsonschema import Draft202012Validator

from benchmarker.log.lines import Json

WireProtocol = Literal["http", "subprocess"]
SCHEMA_FILES: dict[WireProtocol, str] = {"http": "http_agent.schema.json", "subprocess": "subprocess_agent.schema.json"}


@cache
def schema(protocol: WireProtocol) -> dict[str, Json]:
    """The whole schema document for one protocol (a JSON Schema: open JSON by nature)."""
    path = resources.files("benchmarker.agent.adapters").joinpath("schemas", SCHEMA_FILES[protocol])
    loaded: dict[str, Json] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


@cache
def _validator(protocol: WireProtocol, definition: str) -> Draft202012Validator:
    root = schema(protocol)
    defs = root["$defs"]
    if not isinstance(defs, dict) or definition not in defs:
        raise KeyError(f"{SCHEMA_FILES[protocol]} has no definition {definition!r}")
    # The root holds only $defs, so adding a $ref to one of them validates against that one.
    return Draft202012Validator({**root, "$ref": f"#/$defs/{definition}"})


def problems(protocol: WireProtocol, definition: str, instance: Any) -> list[str]:
    """Why `instance` does not match `definition` (empty when it does), each naming the JSON path."""
    found = sorted(_validator(protocol, definition).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{e.json_path}: {e.message}" for e in found]


def first_problem(protocol: WireProtocol, definition: str, instance: Any) -> str | None:
    """The first mismatch, short enough for an error message; None when `instance` matches."""
    found = problems(protocol, definition, instance)
    if not found:
        return None
    text = found[0]
    return text if len(text) <= 300 else text[:297] + "..."
