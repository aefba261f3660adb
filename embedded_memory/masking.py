"""The one copy of the masking rules: what `python -m embedded_memory` prints, logs or stores, and every text
the harness writes or shows (benchmarker/redact.py imports these rules and adds only its own pieces).

A credential is the value of one of the process's credential-looking environment variables (raw or
percent-encoded, at least `MIN_SECRET_LEN` characters, not an absolute path), URL userinfo, a secret-looking
query value, a bearer / basic token, or a value shaped like a well-known key. The service is a top-level package
that imports nothing of the harness, so the harness imports the rules from here, never the reverse.
`redacted_terminal` masks the terminal of both: the service's `__main__` and the harness's CLI run under it.
The service also masks what it stores with these rules (entries, their tags, contexts) unless started with
`--store-secrets` (`[memory] store_secrets = true`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any
from urllib.parse import quote

MASK = "***"
MIN_SECRET_LEN = 8
# Credential-looking names whose values are not secrets (the shell's working directories).
NOT_SECRET_VARS = frozenset({"PWD", "OLDPWD"})

# Names whose values are credentials: as dict keys (config, headers) and as URL query parameters.
SECRET_NAME = re.compile(
    r"(^|[_\-.])(api[_\-]?key|apikey|key|secret|secret[_\-]?key|secret[_\-]?access[_\-]?key|access[_\-]?key[_\-]?id"
    r"|session[_\-]?token|token|access[_\-]?token|refresh[_\-]?token|id[_\-]?token|password|passwd|pwd|pass"
    r"|auth|authorization|credential|credentials|signature|sig|x-amz-signature|x-amz-credential"
    r"|x-amz-security-token)$", re.IGNORECASE)
# Names that end like a credential but name data: a LangSmith feedback name, a record's question key, a
# prompt-cache routing key, an idempotency key (masking them would hide what a run was configured with).
NOT_SECRET_NAME = re.compile(r"(^|[_\-.])(feedback|question|prompt[_\-]?cache|cache|idempotency|sort)[_\-]?key$",
                             re.IGNORECASE)
# `scheme://` then userinfo up to `@`: the user part stops at `/ ? # @`, a password (after `:`) may hold
# anything but whitespace, quotes, `? # @`, so `pa/ss` and `pa(ss)` are masked whole and
# `http://host/users/@me` (no `:` before the `/`) is left alone.
USERINFO = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://)[^\s/?#@\"<>`\\]*(?::[^\s?#@\"<>`\\]*)?@")
# A query parameter (after `?`, `&` or `;`) and its value, up to the next parameter or the end of the URL.
QUERY_PARAM = re.compile(r"(?<=[?&;])([A-Za-z0-9_.\-]+)=([^&#\s\"<>`\\]*)")
# After `Authorization:` or `Bearer` any token is masked. After `Basic` elsewhere the token must look like one
# (a digit, a capital after its first letter, or `+ = _ ~` inside it, as base64 has), so prose such as "basic
# validation", "Basic Analytics." or "basic e-commerce" stays as written (issue 42: the memory database stores
# dataset text through these rules).
_TOKEN = r"[^\s\"'<>`()\[\]{},;]"
BEARER = re.compile(rf"\b(authorization[\"']?\s*[:=]\s*[\"']?)?(Bearer|Basic)\s+"
                     rf"(?(1)|(?:(?<=earer\s)|(?={_TOKEN}*?(?:[0-9]|(?<={_TOKEN})(?-i:[A-Z])|[+=_~](?={_TOKEN})))))"
                     rf"{_TOKEN}{{8,}}", re.IGNORECASE)
# Credentials by their well-known shape, wherever they sit (a harmless-named env value, an argument, a
# header): OpenAI / Anthropic `sk-`, AWS access key ids, GitHub, Slack, LangSmith and Google API keys.
KNOWN_KEY = re.compile(r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}"
                        r"|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9\-]{10,}|lsv2_(?:pt|sk)_[A-Za-z0-9_]{20,}"
                        r"|AIza[0-9A-Za-z_\-]{35})")


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name)) and not NOT_SECRET_NAME.search(name)


class EnvSecrets:
    """The credential values of this process's environment as one regex, rebuilt when they change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: tuple[frozenset[Any], dict[Any, Any], re.Pattern[str] | None] | None = None

    @staticmethod
    def _raw() -> dict[Any, Any]:
        data = getattr(os.environ, "_data", None)  # POSIX: bytes -> bytes, compared without decoding
        return data if isinstance(data, dict) else dict(os.environ)

    def pattern(self) -> re.Pattern[str] | None:
        raw = self._raw()
        state = self._state
        if state is not None:
            names, values, pattern = state
            if raw.keys() == names and all(raw.get(k) == v for k, v in values.items()):
                return pattern
        with self._lock:
            return self._rebuild(raw)

    def _rebuild(self, raw: dict[Any, Any]) -> re.Pattern[str] | None:
        values: dict[Any, Any] = {}
        secrets: set[str] = set()
        for key, value in raw.items():
            name = os.fsdecode(key)
            if name in NOT_SECRET_VARS or not is_secret_name(name):
                continue
            values[key] = value
            text = os.fsdecode(value)
            if len(text) >= MIN_SECRET_LEN and not os.path.isabs(text):
                secrets |= {text, quote(text, safe="")}
        # Longest first, so a value containing another is masked whole.
        ordered = sorted(secrets, key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._state = (frozenset(raw.keys()), values, pattern)
        return pattern


_ENV = EnvSecrets()


def env_secrets() -> re.Pattern[str] | None:
    """The process's credential values as one regex (None when there are none): read once per batch of texts."""
    return _ENV.pattern()


def _mask_param(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2)
    return f"{name}={MASK}" if value and is_secret_name(name) else match.group(0)


def mask(text: str, env: re.Pattern[str] | None) -> str:
    """`text` with every rule applied, the environment's credentials given as `env` (from `env_secrets`)."""
    if env is not None and len(text) >= MIN_SECRET_LEN:
        text = env.sub(MASK, text)
    if "://" in text:
        text = USERINFO.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    if "=" in text:
        text = QUERY_PARAM.sub(_mask_param, text)
    if "earer" in text or "asic" in text:
        text = BEARER.sub(lambda m: f"{m.group(1) or ''}{m.group(2)} {MASK}", text)
    if len(text) >= 20:
        text = KNOWN_KEY.sub(MASK, text)
    return text


def redact_text(text: str) -> str:
    """`text` with the process's credentials, URL userinfo, secret query values and bearer tokens masked."""
    return mask(text, env_secrets())


def text_masker() -> Callable[[str], str]:
    """`redact_text` with the environment read once: for the many strings of one request (a batch of
    entries and their tags), where re-checking the environment per string cost half the masking."""
    env = env_secrets()
    return lambda text: mask(text, env)


def clean_cut(text: str, limit: int) -> str:
    """`text[:limit]` verbatim, but moved back to the start of a credential the cut would split, so whatever
    masks the kept text later masks every credential in it whole (memory entries, prompts)."""
    if len(text) <= limit:
        return text
    spans = secret_spans(text, env_secrets())
    end, moved = limit, True
    while moved:
        moved = False
        for start, stop in spans:
            if start < end < stop:
                end, moved = start, True
    return text[:end]


def secret_spans(text: str, env: re.Pattern[str] | None) -> list[tuple[int, int]]:
    """Where `mask`'s rules find a credential in `text` (each rule on the original text)."""
    found = [m.span() for rule in (env, USERINFO, BEARER, KNOWN_KEY) if rule is not None for m in rule.finditer(text)]
    return found + [m.span(2) for m in QUERY_PARAM.finditer(text) if m.group(2) and is_secret_name(m.group(1))]


def redact_stored(tags_json: str, masker: Callable[[str], str] | None = None) -> str:
    """An entry's tags (compact JSON text) with every string in them, keys included, masked."""
    redact = masker or text_masker()

    def masked(value: Any) -> Any:
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, dict):
            return {redact(key): masked(item) for key, item in value.items()}
        if isinstance(value, list):
            return [masked(item) for item in value]
        return value

    return json.dumps(masked(json.loads(tags_json)), ensure_ascii=False, separators=(",", ":"))


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's final message and traceback (install it on handlers)."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True
        cleaned = redact_text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


class RedactingStream:
    """A text stream (stdout / stderr) that redacts every write; everything else is the wrapped stream's."""

    def __init__(self, stream: IO[str]):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact_text(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def redacting_excepthook(kind: type[BaseException], exc: BaseException, tb: Any) -> None:
    """`sys.excepthook` for a traceback that escapes the CLI: printed redacted."""
    import traceback

    print(redact_text("".join(traceback.format_exception(kind, exc, tb))), end="", file=sys.stderr)


@contextlib.contextmanager
def redacted_terminal() -> Iterator[None]:
    """Everything the process shows masked (the service's `__main__`, the harness's CLI): stdout and stderr
    (prints, progress, rich output, the error boundary) wrapped while the verb runs, every logging handler
    filtered (traceback included), and a traceback escaping the CLI printed masked."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)
    sys.excepthook = redacting_excepthook
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
