"""Where a long answer gives its answer: the conclusion of a step-by-step hypothesis.

Readers that reason aloud ("1. Extract ... 2. Reason ... Therefore, you have three tanks.") mention
many values on the way; a judge weighs what they conclude. `conclusion(text)` is the text from the
last conclusion marker ("Therefore", "So,", "In conclusion", "**Answer:**", "Based on ..., I
conclude") to the end; with no marker, a multi-paragraph answer's last paragraph; otherwise the
whole text. `without_references` drops what only looks like a quantity: list numbering ("1. ",
"2) ") and session or step numbers ("Session 4", "Sessions 1, 3 and 14", "Step 2").
"""

from __future__ import annotations

import re

_MARKER = re.compile(
    r"(?:^|(?<=[.!?:;)]\s)|(?<=\n)|(?<=\*\*))[\s*#>_-]*"
    r"(?:therefore|thus|hence|so,|so\s+(?:the|you|your|i|we|it|there|in\s+total)\b|in\s+(?:conclusion|summary|total|short)|"
    r"to\s+(?:summari[sz]e|conclude|sum\s+up)|final\s+answer|(?:the\s+|my\s+|our\s+)?(?:final\s+|short\s+)?answer\s*(?:is|:|\*)|"
    r"conclusion\b|(?:i|we)\s+(?:can\s+)?conclude|based\s+on\b[^.\n]{0,120}?,|considering\b[^.\n]{0,120}?,|overall,)",
    re.IGNORECASE | re.MULTILINE)
_MIN_WHOLE = 100  # shorter answers are their own conclusion
_LIST_MARKER = re.compile(r"(?:^|(?<=\n)|(?<=:)|(?<=:\s))[ \t]*(?:\d{1,2}[.)]|[-*•])[ \t]+(?=\S)", re.MULTILINE)
_REFERENCE = re.compile(r"\b(sessions?|steps?|chats?|turns?|messages?)\s+#?\d+(?:\s*(?:,|and|&|-|–|to|or)\s*#?\d+)*\b",
                        re.IGNORECASE)


def without_references(text: str) -> str:
    """The text with list numbering and session/step numbers removed (they are not quantities)."""
    return _REFERENCE.sub(r"\1", _LIST_MARKER.sub(" ", text))


def conclusion(text: str) -> str:
    """The part of an answer that states its answer (module docstring); the whole of a short one."""
    text = text.strip()
    if len(text) < _MIN_WHOLE:
        return text
    starts = [m.start() for m in _MARKER.finditer(text)]
    if starts and starts[-1] > 0:
        tail = text[starts[-1]:].strip()
        if len(re.findall(r"\w+", tail)) >= 2:
            return tail
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    return paragraphs[-1].strip() if len(paragraphs) >= 3 else text
