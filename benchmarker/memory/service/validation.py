"""Argument checks shared by the MCP tools and the REST API; every error names its argument."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from benchmarker.memory.service.errors import ServiceError
from benchmarker.memory.service.settings import (
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
from benchmarker.memory.service.timefmt import normalize_cursor

_TITLE = re.compile(r"^[A-Za-z0-9-]+$")


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
    if strict and not _TITLE.match(value):
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


def tags(value: Any, *, max_bytes: int) -> str:
    """The tags object as compact JSON text (what is stored)."""
    if value is None:
        return "{}"
    if not isinstance(value, dict):
        raise ServiceError("tags", f"must be a JSON object, got {type(value).__name__}")
    try:
        encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise ServiceError("tags", f"must hold only JSON values: {err}") from None
    size = utf8_size("tags", encoded)
    if size > max_bytes:
        raise ServiceError("tags", f"are {size} bytes as JSON; the limit is {max_bytes} bytes")
    return encoded


def whole_number(argument: str, value: Any, *, low: int, high: int, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ServiceError(argument, f"must be a whole number from {low} to {high}, got {value!r}")
    if value != int(value) or not low <= value <= high:
        shown = int(value) if isinstance(value, float) and value.is_integer() else value
        raise ServiceError(argument, f"must be a whole number from {low} to {high}, got {shown!r}")
    return int(value)


def top_k(value: Any) -> int:
    return whole_number("top_k", value, low=TOP_K_MIN, high=TOP_K_MAX, default=TOP_K_DEFAULT)


def list_limit(value: Any) -> int:
    return whole_number("limit", value, low=LIST_LIMIT_MIN, high=LIST_LIMIT_MAX, default=LIST_LIMIT_DEFAULT)


def alpha(value: Any, *, default: float, has_vectors: bool) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0.0 <= value <= 1.0:
        raise ServiceError("alpha", f"must be a number from 0 (pure BM25) to 1 (pure vector), got {value!r}")
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
