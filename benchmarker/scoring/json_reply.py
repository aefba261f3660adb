"""The first JSON object in a model reply, however the model wrapped it.

Judges are asked for JSON and reply with ```json fences, a sentence before or after, an outer
object around the one asked for ({"audit": {...}}), or braces inside strings. A regex cannot
see where an object ends when its strings hold braces (or fences), so every "{" is handed to
the JSON decoder: what decodes is an object, what does not is prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def _decoded(text: str) -> Iterator[tuple[int, Any]]:
    """(start, value) of each JSON object that starts at a '{' outside an object already decoded."""
    end = 0
    for i, ch in enumerate(text):
        if ch != "{" or i < end:
            continue
        try:
            value, end = _DECODER.raw_decode(text, i)
        except ValueError:
            continue
        yield i, value


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in a reply: those in ``` fences first, then the rest; each object
    before the objects nested in it (breadth first, through lists too)."""
    fences = [m.span(1) for m in _FENCE.finditer(text)]
    found = sorted(_decoded(text), key=lambda item: not any(a <= item[0] < b for a, b in fences))
    for _, value in found:
        queue = [value]
        while queue:
            item = queue.pop(0)
            if isinstance(item, dict):
                yield item
                queue += list(item.values())
            elif isinstance(item, list):
                queue += item


def first_json_object(text: str, accept: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any] | None:
    """The first object of `json_objects(text)` that `accept` takes (any object without it), else None."""
    return next((obj for obj in json_objects(str(text)) if accept is None or accept(obj)), None)
