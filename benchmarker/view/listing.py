"""The question list of a run page: filters, sort and page, all carried in the query string."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlencode

from benchmarker.scoring.attribution import STAGES
from benchmarker.view.lines import Row

PAGE_SIZE = 50
VERDICTS = ("correct", "wrong", "unjudged")
SORTS = ("id", "type", "verdict", "stage")


def verdict(label: bool | None) -> str:
    return "unjudged" if label is None else "correct" if label else "wrong"


_SORT_KEYS = {"id": lambda r: (r.qid,), "type": lambda r: (r.qtype, r.qid),
              "verdict": lambda r: (verdict(r.label), r.qid), "stage": lambda r: (r.stage, r.qid)}


@dataclass(frozen=True)
class ListQuery:
    """What the visitor asked of the list; unknown values fall back to "no filter" / the defaults."""

    type: str = ""
    verdict: str = ""
    stage: str = ""
    q: str = ""
    sort: str = "id"
    desc: bool = False
    page: int = 1

    @classmethod
    def of(cls, params: Mapping[str, str]) -> ListQuery:
        page = params.get("page", "1")
        return cls(type=params.get("type", ""), verdict=params.get("verdict", "") if params.get("verdict") in VERDICTS else "",
                   stage=params.get("stage", ""), q=params.get("q", "").strip(),
                   sort=params.get("sort", "id") if params.get("sort") in SORTS else "id",
                   desc=params.get("desc") == "1", page=int(page) if page.isdigit() and int(page) > 0 else 1)

    def link(self, **changes: Any) -> str:
        """The query string of this view with `changes` (a new filter or sort goes back to page 1)."""
        changed = replace(self, **({"page": 1} | changes))
        default = ListQuery()
        pairs = {f.name: getattr(changed, f.name) for f in fields(self) if getattr(changed, f.name) != getattr(default, f.name)}
        if pairs.get("desc"):
            pairs["desc"] = "1"
        return "?" + urlencode(pairs) if pairs else "?"

    def sort_link(self, key: str) -> str:
        return self.link(sort=key, desc=not self.desc if self.sort == key else False)


def select(rows: Iterable[Row], query: ListQuery) -> list[Row]:
    needle = query.q.casefold()
    found = [r for r in rows
             if (not query.type or r.qtype == query.type) and (not query.verdict or verdict(r.label) == query.verdict)
             and (not query.stage or r.stage == query.stage) and (not needle or needle in r.text)]
    return sorted(found, key=_SORT_KEYS[query.sort], reverse=query.desc)


@dataclass(frozen=True)
class Page:
    rows: list[Row]
    matched: int
    number: int
    count: int


def paginate(rows: list[Row], number: int, size: int = PAGE_SIZE) -> Page:
    count = max(1, -(-len(rows) // size))
    number = min(number, count)
    return Page(rows[(number - 1) * size:number * size], len(rows), number, count)


def facets(rows: Iterable[Row]) -> tuple[list[str], list[str]]:
    """The question types and attribution stages present, for the filter menus."""
    types: set[str] = set()
    stages: set[str] = set()
    for r in rows:
        types.add(r.qtype)
        if r.stage:
            stages.add(r.stage)
    return sorted(types), [s for s in STAGES if s in stages] + sorted(stages - set(STAGES))
