"""Memory titles: a case's memory (or a mapped server's scope) is named from the title template,
the case, the run and the attempt, so a resumed run finds it and a cut-off attempt never reuses it."""

from __future__ import annotations

import hashlib
import re

MAX_ATTEMPTS = 50


TITLE_MAX = 50
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9-]+")


def memory_title(template: str, case_id: str, run_id: str, attempt: int) -> str:
    """The rendered template, made valid for Mycelian (letters, digits, hyphens; at most 50 chars).

    Underscores and dots become hyphens; a title that is still too long keeps its start and gets
    a short hash of the full title, so two long titles never collide.
    """
    base = template.format(question_id=case_id, case_id=case_id, run_id=run_id)
    if attempt > 1:
        base = f"{base}--a{attempt}"
    title = _NOT_ALLOWED.sub("-", base).strip("-") or "memory"
    if len(title) > TITLE_MAX:
        digest = hashlib.sha256(base.encode("utf-8")).hexdigest()[:8]
        title = f"{title[:TITLE_MAX - 9].rstrip('-')}-{digest}"
    return title
