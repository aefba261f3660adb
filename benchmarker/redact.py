"""Keep credentials out of what a run writes: manifest, logs, error lines, reports.

Keys never come from the config file (config.py refuses secret-looking keys), but a URL can
still carry one: `http://user:pass@host/v1`, `...?api_key=...`, a presigned `X-Amz-Signature`.
Everything written from config or from an exception message goes through `redact`, which
replaces URL userinfo and secret-looking query values with `***` and leaves the rest readable
(scheme, host, port and path stay, so a reader can still tell which server was used).
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"

# Names whose values are credentials: as dict keys (config, headers) and as URL query parameters.
SECRET_NAME = re.compile(
    r"(^|[_\-.])(api[_\-]?key|apikey|key|secret|secret[_\-]?key|secret[_\-]?access[_\-]?key|access[_\-]?key[_\-]?id"
    r"|session[_\-]?token|token|access[_\-]?token|refresh[_\-]?token|id[_\-]?token|password|passwd|pwd|pass"
    r"|auth|authorization|credential|credentials|signature|sig|x-amz-signature|x-amz-credential"
    r"|x-amz-security-token)$", re.IGNORECASE)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'\"<>()\[\]{}`]+")
_BEARER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact_url(url: str) -> str:
    """`url` with its userinfo and secret-looking query values masked; other text unchanged."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
    except ValueError:
        return url
    changed = False
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
        changed = True
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        masked = [(name, MASK if value and is_secret_name(name) else value) for name, value in pairs]
        if masked != pairs:
            query = urlencode(masked, safe="*")
            changed = True
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)) if changed else url


def redact_text(text: str) -> str:
    """Every URL inside free text (an exception message, a log line) redacted, bearer tokens masked."""
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    if "earer" in text or "asic" in text:
        text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    return text


def redact(value: Any) -> Any:
    """A copy of a JSON-like value with every string redacted and secret-named keys' values masked."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: (MASK if isinstance(key, str) and is_secret_name(key) and isinstance(item, str) and item
                      else redact(item)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(item) for item in value]
    return value


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's final message (install it on handlers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True
        cleaned = redact_text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
