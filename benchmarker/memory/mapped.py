"""The harness's memory operations on a mapped (non-Mycelian) server: write one message, wait,
search, and trace hits back to the dataset messages that wrote them.

Such servers return no tags, often no ids and no scores, so a hit is traced by its TEXT: every
write the run makes (the harness's in retrieval mode, the memory agent's otherwise; both are in
decisions.jsonl) says which session and message it came from, and a hit holding a written text
verbatim is traced to that message. Text the agent rewrote and the server merged can fail to
trace; the retrieval report then says how many hits were traced rather than guessing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from benchmarker.errors import MemoryToolError
from benchmarker.log.lines import Json
from benchmarker.memory.tool_mapping import SearchSpec, ToolMapping, extract, extract_text, render

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")
# Words that say nothing about what to find (question scaffolding and the commonest English words).
STOPWORDS = frozenset("""a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
no nor not now of off on once only or other our ours ourselves out over own same she should so some such than
that the their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself yourselves tell know
remember recall did mentioned mention said say told ago last first many much long time times previous
previously earlier recently""".split())


@dataclass(frozen=True)
class Hit:
    """One search hit, server-agnostic: `id` and `score` are None when the server has none."""

    rank: int
    text: str
    id: str | None = None
    score: float | None = None


class Origin(TypedDict, total=False):
    """The dataset message a written text came from (a traced hit's session and turn in results.jsonl)."""

    session_id: str | None
    session_date: str | None
    turn_index: int | None
    role: str | None


@dataclass
class WrittenTexts:
    """Texts written to one memory and the message each came from (for tracing hits)."""

    origins: dict[str, Origin] = field(default_factory=dict)

    def add(self, text: str, origin: Origin) -> None:
        key = _norm(text)
        if key and key not in self.origins:
            self.origins[key] = origin

    def trace(self, hit_text: str) -> Origin | None:
        """The origin of the earliest-written text the hit holds verbatim (None: untraceable)."""
        norm = _norm(hit_text)
        if not norm:
            return None
        exact = self.origins.get(norm)
        if exact is not None:
            return exact
        for text, origin in self.origins.items():
            if text in norm:
                return origin
        return None

    def __len__(self) -> int:
        return len(self.origins)


def _norm(text: str) -> str:
    return " ".join(text.split()).strip()


def keywords(question: str, limit: int) -> list[str]:
    """Content words of a question, longest first (rarer words find fewer, better hits)."""
    seen: dict[str, int] = {}
    for i, word in enumerate(_WORD.findall(question)):
        lowered = word.lower().strip("'-")
        if len(lowered) >= 3 and lowered not in STOPWORDS and lowered not in seen:
            seen[lowered] = i
    ranked = sorted(seen, key=lambda w: (-len(w), seen[w]))
    return ranked[:limit] or ([question.strip()] if question.strip() else [])


def write_arguments(mapping: ToolMapping, values: Mapping[str, Json]) -> dict[str, Json]:
    assert mapping.write is not None
    return render(mapping.write.arguments, values)


def written_texts_of(mapping: ToolMapping, tool: str, args: Mapping[str, Json]) -> list[str]:
    """The texts a write call stored (per the mapping's text paths for that tool)."""
    if mapping.write is None:
        return []
    texts: list[str] = []
    for path in mapping.write.text_paths_of(tool):
        texts += [t for t in extract(args, path) if isinstance(t, str) and t.strip()]
    return texts


def parse_hits(spec: SearchSpec, result_text: str) -> list[Hit]:
    """The hits of one search result, in the server's order."""
    if spec.result == "lines":
        return _line_hits(spec, result_text)
    try:
        value = json.loads(result_text) if result_text.strip() else {}
    except json.JSONDecodeError:
        raise MemoryToolError(spec.tool, f"expected JSON (the mapping says result = \"json\"), got: "
                                         f"{result_text[:200]!r}") from None
    hits = []
    for rank, item in enumerate(extract(value, spec.hits) if spec.hits else [value], start=1):
        ids = extract(item, spec.id) if spec.id else []
        scores = [s for s in (extract(item, spec.score) if spec.score else []) if isinstance(s, (int, float))]
        text = extract_text(item, spec.text) if spec.text else (item if isinstance(item, str) else json.dumps(item))
        hits.append(Hit(rank=rank, text=text, id=str(ids[0]) if ids else None,
                        score=float(scores[0]) if scores else None))
    return hits


def _line_hits(spec: SearchSpec, text: str) -> list[Hit]:
    if not text.strip() or text.strip() in spec.empty:
        return []
    items: list[str] = []
    for line in text.splitlines():
        if spec.line_prefix and line.startswith(spec.line_prefix):
            items.append(line[len(spec.line_prefix):])
        elif spec.line_prefix and items:
            items[-1] += "\n" + line  # a stored text with a line break continues its hit
        elif line.strip():
            items.append(line)
    return [Hit(rank=i, text=t.strip()) for i, t in enumerate(items, start=1) if t.strip()]


async def search(client: Any, mapping: ToolMapping, scope: str, query: str, top_k: int) -> tuple[list[Hit], int]:
    """The hits for `query` and how many tool calls it took (keyword mode fans out and fuses to top_k). A server
    asked for top_k hits may return more: they are passed on, so the qa node trims and counts them."""
    spec = mapping.search
    assert spec is not None
    if spec.query == "question":
        text = await client.call(spec.tool, render(spec.arguments, {"query": query, "top_k": top_k, "scope": scope}))
        return parse_hits(spec, text), 1
    words = keywords(query, spec.max_keywords)
    votes: dict[str, tuple[int, int, int, Hit]] = {}   # key -> (words that found it, best rank, order, hit)
    for order, word in enumerate(words):
        text = await client.call(spec.tool, render(spec.arguments, {"query": word, "top_k": top_k, "scope": scope}))
        for hit in parse_hits(spec, text):
            key = hit.id or _norm(hit.text)
            count, best, first, kept = votes.get(key, (0, hit.rank, order, hit))
            votes[key] = (count + 1, min(best, hit.rank), first, kept)
    ranked = sorted(votes.values(), key=lambda v: (-v[0], v[2], v[1]))[:top_k]
    return [Hit(rank=i, text=h.text, id=h.id, score=float(n)) for i, (n, _, _, h) in enumerate(ranked, start=1)], \
        len(words)


async def create_container(client: Any, mapping: ToolMapping, *, title: str, case_id: str, description: str) -> str:
    """Scope "container": create the case's container and return its id (read at `scope.id`)."""
    spec = mapping.scope
    text = await client.call(spec.create_tool, render(spec.create_arguments,
                                                      {"title": title, "case_id": case_id, "description": description}))
    if not spec.id:
        found = text.strip()
    else:
        try:
            values = extract(json.loads(text), spec.id)
        except json.JSONDecodeError:
            values = []
        found = str(values[0]) if values and values[0] not in (None, "") else ""
    if not found:
        raise MemoryToolError(spec.create_tool, f"no container id at {spec.id or 'the result'!r} in {text[:200]!r} "
                                                "(check [scope].id in the mapping)")
    return found
