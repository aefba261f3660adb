"""JSON from files a run wrote (or anyone could have edited), parsed within a depth and a size limit.

`json.loads` recurses once per level of nesting, so a line nested 100,000 deep raised RecursionError,
which no reader caught (tracebacks in `report`, `compare`, `oracle`, `score`, the BEAM loader; a 500
for every page of `view`). `load_json` turns that into `JsonLimitError`, a `json.JSONDecodeError`, so
every reader already handles it as it handles a line that is not JSON (one line naming the file, a
skipped torn line, a run shown with its error).

The decoder's own guard (the C scanner counts its recursion and raises RecursionError near the
interpreter's limit) stops the 100,000-deep text; a value that parsed but nests deeper than
MAX_JSON_DEPTH (which the code that walks it, pydantic, masking, json.dumps, may not survive) is
found by an iterative walk of its containers. A text with no more brackets than the limit cannot be
that deep and is not walked (nearly every results line). Measured against plain json.loads: +9 to
+18 % on a quickstart results.jsonl, +35 % on a BEAM one (docs/internals.md). A text scan for bracket
depth before parsing, tried first, cost +143 % on the BEAM file.
"""

from __future__ import annotations

import json
from typing import Any

MAX_JSON_DEPTH = 100          # a summary.json nests ~6 levels, a results line ~4, a BEAM row ~5
MAX_JSON_BYTES = 512 * 2**20  # one document or line; a run's largest (a BEAM dataset file) is ~100 MB


class JsonLimitError(json.JSONDecodeError):
    """A JSON text nested deeper than, or larger than, what a reader accepts. Its `msg` (and str) is one
    plain phrase, e.g. "nested deeper than 100 levels", for the reader's own line naming the file."""

    def __init__(self, msg: str):
        super().__init__(msg, "", 0)

    def __str__(self) -> str:
        return self.msg


def deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays/objects in a parsed value nest more than `limit` levels (a loop and a stack: no recursion)."""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if not isinstance(node, dict | list):
            continue
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                push((child, depth + 1))
    return False


def load_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """json.loads within the limits: JsonLimitError (a JSONDecodeError) for a text too big or nested too deep."""
    if len(text) > max_bytes:
        raise JsonLimitError(f"larger than {max_bytes} bytes")
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonLimitError(f"nested deeper than {max_depth} levels") from None
    if isinstance(text, bytes):
        bound = text.count(b"[") + text.count(b"{")
    else:
        bound = text.count("[") + text.count("{")
    if bound > max_depth and deeper_than(value, max_depth):
        raise JsonLimitError(f"nested deeper than {max_depth} levels")
    return value
