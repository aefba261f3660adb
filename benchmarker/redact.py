"""Every text that leaves the process goes through `redact_text`. The rules have one copy, in
embedded_memory/masking.py (the embedded service masks what it stores and shows with the same code); this
module re-exports them and adds what only the harness needs: `redact_url`, `masked_preview` and the `redact` walk.

Files (the run log's JSONL and JSON writers, reports), the terminal (logging, prints, progress, the
CLI error boundary) and trace payloads all call it, so one rule decides what a credential is:

- the value of any of this process's credential-looking environment variables (a name `is_secret_name`
  matches: OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, LANGSMITH_API_KEY, ..._TOKEN, ..._PASSWORD), raw or
  percent-encoded, wherever it appears. Values shorter than `MIN_SECRET_LEN` (8) characters and
  absolute paths are not masked: `AUTH=true` or `DB_PASSWORD=test` would mask ordinary words, and
  PWD or a credentials *file* would mask every path of the run (the file's content is the secret);
- the userinfo of a URL (`scheme://user:password@host` becomes `scheme://***@host`);
- the value of a secret-looking query parameter (`?api_key=`, `&token=`, `X-Amz-Signature=`, ...);
- a bearer / basic token after `Bearer` or `Basic`.
- a value shaped like a well-known credential (`sk-...`, `sk-ant-...`, `AKIA...`, `ghp_...`, `xoxb-...`,
  `lsv2_...`, `AIza...`), whatever name it sits under: an env value under a harmless name, an argument,
  a header.

Scheme, host, port, path and other parameters stay, so a reader can still tell which server was used.
A text is masked whole before anything cuts it (`masked_preview`; `clean_cut` for text kept verbatim),
since a cut prefix of a key no longer has the key's shape. `redact` applies the same to a JSON-like value
and, for config-like data (`keys=True`), also masks the values of secret-named keys.

Cost: the environment is re-read only when its set of names or a credential's value changed (a set
comparison), and all credential values are one compiled regex alternation, so a short string costs a
few microseconds whatever the number of variables.
"""

from __future__ import annotations

import re
from typing import Any

from embedded_memory.masking import (
    MASK,
    MIN_SECRET_LEN,
    NOT_SECRET_VARS,
    RedactingFilter,
    RedactingStream,
    clean_cut,
    env_secrets,
    is_secret_name,
    mask,
    redact_text,
    redacted_terminal,
    redacting_excepthook,
)

__all__ = ["MASK", "MIN_SECRET_LEN", "NOT_SECRET_VARS", "RedactingFilter", "RedactingStream", "clean_cut",
           "is_secret_name", "masked_preview", "redact", "redact_text", "redact_url", "redacted_terminal",
           "redacting_excepthook"]


def redact_url(url: str) -> str:
    """A URL (or any text) with its userinfo and secret-looking query values masked; the rest unchanged."""
    return redact_text(url)


def masked_preview(text: str, limit: int, more: str = "") -> str:
    """`text` masked whole, then cut to `limit` characters (`more` appended when cut): a cut never leaves
    the prefix of a credential that masking would no longer recognise."""
    masked = redact_text(text)
    return masked if len(masked) <= limit else masked[:limit] + more


def redact(value: Any, *, keys: bool = True) -> Any:
    """A copy of a JSON-like value with every string redacted; with `keys`, secret-named keys' string
    values are masked too (config, headers; run records keep `keys=False`: `question_key` is data)."""
    return _redact(value, keys, env_secrets())  # the environment is checked once per value, not per string


def _redact(value: Any, keys: bool, env: re.Pattern[str] | None) -> Any:
    if isinstance(value, str):
        return mask(value, env)
    if isinstance(value, dict):
        return {key: (MASK if keys and isinstance(key, str) and is_secret_name(key) and isinstance(item, str) and item
                      else _redact(item, keys, env)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact(item, keys, env) for item in value]
    return value
