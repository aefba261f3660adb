"""Argument checks shared by the MCP tools and the REST API; every error names its argument.

Both interfaces hand these functions the values exactly as the JSON request carried them (the
MCP tools declare their numbers as `Any` and never re-parse strings), so a value is accepted or
refused, with the same message, whichever way it came in. Numbers are strict: a string ("5") or a
boolean is not a number, and NaN / Infinity (also 1e400, which JSON parsers read as Infinity) are
refused naming the argument. JSON has one number type, so a whole number may be written 5 or 5.0;
5.5 is refused.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from embedded_memory.errors import ServiceError
from embedded_memory.settings import (
    DESCRIPTION_MAX_CHARS,
    LIST_LIMIT_DEFAULT,
    LIST_LIMIT_MAX,
    LIST_LIMIT_MIN,
    MEMORY_TYPE_MAX_CHARS,
    TITLE_MAX_CHARS,
    TOP_K_DEFAULT,
    TOP_K_MAX,
    TOP_K_MIN,
)
from embedded_memory.shapes import EntryItem
from embedded_memory.timefmt import normalize_cursor

# Mycelian's rule for vault and memory titles. Config validation applies the same rule to vault_title
# (benchmarker.config_schema.MYCELIAN_TITLE states it again: the service imports nothing of the harness,
# and config_schema, an earlier stage, may not import the service); tests/test_import_graph.py keeps them equal.
MYCELIAN_TITLE = re.compile(r"^[A-Za-z0-9-]{1,50}$")


def utf8_size(argument: str, value: str) -> int:
    """Bytes of `value` in UTF-8; lone surrogates (not encodable) are an error naming the argument."""
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError as err:
        raise ServiceError(argument, f"is not valid UTF-8 text (lone surrogate at character {err.start}); "
                                     "send well-formed Unicode") from None


def text(argument: str, value: Any, *, max_bytes: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ServiceError(argument, f"must be a string, got {type(value).__name__}")
    size = utf8_size(argument, value)
    if not allow_empty and not value.strip():
        raise ServiceError(argument, "must not be empty")
    if size > max_bytes:
        raise ServiceError(argument, f"is {size} bytes; the limit is {max_bytes} bytes (UTF-8)")
    return value


def identifier(argument: str, value: Any) -> str:
    return text(argument, value, max_bytes=200).strip()


def title(value: Any, *, strict: bool) -> str:
    """Mycelian's rule: 1-50 characters, letters, digits and hyphen only (when strict)."""
    value = text("title", value, max_bytes=4 * TITLE_MAX_CHARS)
    if len(value) > TITLE_MAX_CHARS:
        raise ServiceError("title", f"is {len(value)} characters; the limit is {TITLE_MAX_CHARS}")
    if strict and not MYCELIAN_TITLE.match(value):  # the rule config validation applies to vault_title
        raise ServiceError("title", f"{value!r} contains characters Mycelian rejects; use only letters, digits "
                                    "and hyphens (e.g. replace '_' with '-'), at most 50 characters")
    return value


def description(value: Any) -> str:
    value = text("description", "" if value is None else value, max_bytes=4 * DESCRIPTION_MAX_CHARS,
                 allow_empty=True)
    if len(value) > DESCRIPTION_MAX_CHARS:
        raise ServiceError("description", f"is {len(value)} characters; the limit is {DESCRIPTION_MAX_CHARS}")
    return value


def memory_type(value: Any) -> str:
    value = text("memory_type", value, max_bytes=4 * MEMORY_TYPE_MAX_CHARS).strip()
    if len(value) > MEMORY_TYPE_MAX_CHARS:
        raise ServiceError("memory_type", f"is longer than {MEMORY_TYPE_MAX_CHARS} characters")
    return value


def shown(value: Any) -> str:
    """A value as JSON spells it (true, "5", NaN), for error messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: written as its \ud800 escape, or no reply could carry it
        return json.dumps(value)[:60]
    except (TypeError, ValueError):
        return ascii(value)[:60]
    return text[:60]


def non_finite(value: Any) -> tuple[str, float] | None:
    """(path, number) of the first NaN or +-Infinity in a parsed JSON value ("" = the value itself)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:  # iterative: a deeply nested object cannot overflow the stack
        path, node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return path, node
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((f"{path}.{key}" if path else str(key), child) for key, child in reversed(list(children)))
    return None


def finite(argument: str, value: Any) -> None:
    """Refuse NaN and +-Infinity anywhere in `value`: JSON has no such numbers."""
    found = non_finite(value)
    if found is None:
        return
    path, number = found
    if not path:
        raise ServiceError(argument, f"must be a finite number, got {shown(number)}")
    raise ServiceError(argument, f"must hold only finite numbers; {argument}.{path} is {shown(number)}")


def tags(value: Any, *, max_bytes: int) -> str:
    """The tags object as compact JSON text (what is stored)."""
    if value is None:
        return "{}"
    if not isinstance(value, dict):
        raise ServiceError("tags", f"must be a JSON object, got {shown(value)}")
    finite("tags", value)
    try:
        encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise ServiceError("tags", f"must hold only JSON values: {err}") from None
    size = utf8_size("tags", encoded)
    if size > max_bytes:
        raise ServiceError("tags", f"are {size} bytes as JSON; the limit is {max_bytes} bytes")
    return encoded


def entry_list(value: Any, *, max_entries: int) -> list[EntryItem]:
    """add_entries' `entries`: a non-empty list of at most `max_entries` objects (each checked by the caller)."""
    if not isinstance(value, list):
        raise ServiceError("entries", f"must be a list of entry objects, got {shown(value)}")
    if not value:
        raise ServiceError("entries", "must hold at least one entry")
    if len(value) > max_entries:
        raise ServiceError("entries", f"holds {len(value)} entries; the limit is {max_entries} per call "
                                      "(send several calls, in order)")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ServiceError(f"entries[{i}]", f"must be an object with raw_entry, summary and tags, got {shown(item)}")
    return value


def whole_number(argument: str, value: Any, *, low: int, high: int, default: int) -> int:
    """An integer in [low, high]; 5.0 counts as 5 (JSON has one number type), "5" and true do not."""
    if value is None:
        return default
    finite(argument, value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) \
            or not low <= value <= high:
        number = int(value) if isinstance(value, float) and value.is_integer() else value
        raise ServiceError(argument, f"must be a whole number from {low} to {high}, got {shown(number)}")
    return int(value)


def top_k(value: Any) -> int:
    return whole_number("top_k", value, low=TOP_K_MIN, high=TOP_K_MAX, default=TOP_K_DEFAULT)


def list_limit(value: Any) -> int:
    return whole_number("limit", value, low=LIST_LIMIT_MIN, high=LIST_LIMIT_MAX, default=LIST_LIMIT_DEFAULT)


def alpha(value: Any, *, default: float, has_vectors: bool) -> float:
    if value is None:
        return default
    finite("alpha", value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ServiceError("alpha", f"must be a number from 0 (pure BM25) to 1 (pure vector), got {shown(value)}")
    if value > 0 and not has_vectors:
        raise ServiceError("alpha", f"is {value}, but this service runs with --embedder none (BM25 only); "
                                    "pass alpha=0 or omit it")
    return float(value)


def cursor(argument: str, value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ServiceError(argument, f"must be an RFC3339 timestamp string, got {type(value).__name__}")
    utf8_size(argument, value)
    try:
        return normalize_cursor(value)
    except ValueError as err:
        raise ServiceError(argument, f"{value[:60]!r} is not usable: {err}") from None
