"""Labelled fact-extraction cases (the memory evaluation strategy's offline dataset) -> Case.

A FactCase is a starting memory, one conversation and what the memory should hold after it.
The harness seeds a fresh memory (`seed_memory_plan`), streams the conversation through the
memory agent as one Session, then reads back what was written (`extracted_facts_from_memory`)
for the scorers in `benchmarker.suites.fact_extraction.facts` (deterministic) and `benchmarker.suites.fact_extraction.fact_judge`.
`fact_tokens` is the one normaliser every comparison of fact text goes through.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from jsonschema import Draft202012Validator

from benchmarker.datasets.schema import Case, Message, Session
from benchmarker.errors import DatasetError
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import Json

FACT_EXTRACTION = "fact_extraction"   # the `kind` its cases and lines carry (the suite's record_kinds)
SCENARIOS = (
    "simple_extraction", "chit_chat", "constraint", "conflict_resolution", "multiple_blocks",
    "non_agreement", "preference", "append", "cost_revenue", "explicit_agreement",
)
CASES_FILE = "fact_cases.json"
SCHEMA_FILE = "fact_cases.schema.json"
DEFAULT_DATE = "2024/01/15 (Mon) 10:00"


class ExpectedFactJson(TypedDict):
    """An expected fact written as an object: the fact, and the terms a deterministic match needs."""

    fact: str
    terms: NotRequired[list[str]]


class MessageJson(TypedDict):
    """A conversation message of the case file."""

    role: str
    content: str


class FactCaseJson(TypedDict):
    """One case as the case file writes it (fact_cases.schema.json validates it before it is read)."""

    id: str
    scenario: str
    date: NotRequired[str]
    notes: NotRequired[str]
    existing_memory: list[str]
    conversation: list[MessageJson]
    expected_output: list[str]
    expected_facts: list[str | ExpectedFactJson]
    superseded_facts: NotRequired[list[str | ExpectedFactJson]]


@dataclass(frozen=True)
class ExpectedFact:
    """One atomic fact; `terms` (optional) must all appear for a deterministic match."""

    fact: str
    terms: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, value: str | ExpectedFactJson) -> ExpectedFact:
        if isinstance(value, str):
            return cls(value)
        return cls(value["fact"], tuple(value.get("terms", ())))

    def to_json(self) -> ExpectedFactJson:
        return {"fact": self.fact, "terms": list(self.terms)} if self.terms else {"fact": self.fact}


@dataclass(frozen=True)
class FactCase:
    """One labelled case, as written in the case file."""

    id: str
    scenario: str
    existing_memory: tuple[str, ...]
    conversation: tuple[Message, ...]
    expected_output: tuple[str, ...]
    expected_facts: tuple[ExpectedFact, ...]
    superseded_facts: tuple[ExpectedFact, ...] = ()
    date: str = DEFAULT_DATE
    notes: str = ""

    @classmethod
    def from_dict(cls, d: FactCaseJson) -> FactCase:
        return cls(
            id=d["id"],
            scenario=d["scenario"],
            existing_memory=tuple(d["existing_memory"]),
            conversation=tuple(Message(m["role"], m["content"]) for m in d["conversation"]),
            expected_output=tuple(d["expected_output"]),
            expected_facts=tuple(ExpectedFact.from_json(f) for f in d["expected_facts"]),
            superseded_facts=tuple(ExpectedFact.from_json(f) for f in d.get("superseded_facts", ())),
            date=d.get("date", DEFAULT_DATE),
            notes=d.get("notes", ""),
        )

    def to_dict(self) -> FactCaseJson:
        return {
            "id": self.id,
            "scenario": self.scenario,
            "date": self.date,
            "notes": self.notes,
            "existing_memory": list(self.existing_memory),
            "conversation": [{"role": m.role, "content": m.content} for m in self.conversation],
            "expected_output": list(self.expected_output),
            "expected_facts": [f.to_json() for f in self.expected_facts],
            "superseded_facts": [f.to_json() for f in self.superseded_facts],
        }


# --- loading -------------------------------------------------------------------------------


def load_fact_cases(path: Path | str | None = None) -> list[FactCase]:
    """Load and validate a case file (default: the packaged one); bad input -> DatasetError."""
    if path is None:
        label, text = CASES_FILE, resources.files(__package__).joinpath(CASES_FILE).read_text("utf-8")
    else:
        label = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise DatasetError(f"{label}: cannot read fact case file ({exc.strerror or exc}).") from exc
    try:
        doc = load_json(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{label}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.") from exc
    validator = Draft202012Validator(fact_cases_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [_describe(e, doc) for e in errors[:5]]
        more = f"\n  ... and {len(errors) - 5} more" if len(errors) > 5 else ""
        raise DatasetError(
            f"{label}: {len(errors)} problem(s) in the fact case file:\n  " + "\n  ".join(lines) + more
            + f"\nFix the file; the format is benchmarker/suites/fact_extraction/{SCHEMA_FILE}."
        )
    cases = [FactCase.from_dict(c) for c in doc["cases"]]
    seen: dict[str, int] = {}
    for index, case in enumerate(cases):
        if case.id in seen:
            raise DatasetError(
                f"{label}: case #{index} (id {case.id!r}), field 'id': duplicate of case #{seen[case.id]}; "
                "give every case a unique id."
            )
        seen[case.id] = index
    return cases


def fact_cases_schema() -> dict[str, Json]:
    """The JSON Schema of a case file."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text("utf-8"))


def _describe(error: Any, doc: Any) -> str:
    """'case #3 (id 'x'), field 'conversation[0].role': <why>' for one schema error."""
    while error.context:  # oneOf: report the branch that came closest (not a bare type clash)
        error = min(error.context, key=lambda e: (e.validator == "type" and not e.relative_path, -len(e.path)))
    path = list(error.absolute_path)
    where = "file"
    if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
        case = doc["cases"][path[1]]
        case_id = case.get("id") if isinstance(case, dict) else None
        where = f"case #{path[1]}" + (f" (id {case_id!r})" if isinstance(case_id, str) else "")
        path = path[2:]
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [k for k in error.validator_value if k not in error.instance]
        field = ".".join(filter(None, [field, missing[0] if missing else ""]))
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in allowed]
        field = ".".join(filter(None, [field, extra[0] if extra else ""]))
    why = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return f"{where}, field {field or '(top level)'!r}: {why}"


# --- into the harness ----------------------------------------------------------------------


def fact_case_to_case(fc: FactCase) -> Case:
    """One Session with the conversation and no questions; the FactCase rides in metadata."""
    session = Session(session_id=f"{fc.id}_s1", date=fc.date, messages=fc.conversation)
    return Case(
        case_id=fc.id,
        kind=FACT_EXTRACTION,
        sessions=(session,),
        questions=(),
        metadata={"scenario": fc.scenario, "fact_case": fc.to_dict()},
    )


def fact_case_of(case: Case) -> FactCase:
    """The FactCase a `fact_case_to_case` Case was built from."""
    if case.kind != FACT_EXTRACTION or "fact_case" not in case.metadata:
        raise ValueError(f"case {case.case_id!r} is not a fact_extraction case")
    return FactCase.from_dict(case.metadata["fact_case"])


def seed_context(existing_memory: list[str] | tuple[str, ...]) -> str:
    """The context document the seeded memory starts from."""
    return "## Facts\n" + "\n".join(f"- {fact}" for fact in existing_memory)


def seed_memory_plan(fc: FactCase) -> list[tuple[str, dict[str, Json]]]:
    """MCP calls that seed a fresh memory with `existing_memory` (vault/memory ids left out)."""
    if not fc.existing_memory:
        return []
    tags: dict[str, Json] = {"seed": "existing_memory", "case_id": fc.id}
    plan: list[tuple[str, dict[str, Json]]] = [
        ("add_entry", {"raw_entry": fact, "summary": fact, "tags": dict(tags)}) for fact in fc.existing_memory
    ]
    plan.append(("await_consistency", {}))
    plan.append(("put_context", {"content": seed_context(fc.existing_memory)}))
    plan.append(("await_consistency", {}))
    return plan


# --- fact text: normalising and reading back -----------------------------------------------

_NUMBER_WORDS = dict(zip(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety".split(),
    [*map(str, range(21)), "30", "40", "50", "60", "70", "80", "90"], strict=True,
))
_FACTORS = {"k": 10**3, "thousand": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6, "bn": 10**9, "billion": 10**9}
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MONEY_M = re.compile(r"([$€£¥₹])\s*(\d+(?:\.\d+)?)\s*(m|mn|bn)\b")
_MAGNITUDE = re.compile(r"(\d+(?:\.\d+)?)\s*(k|thousand|million|billion|bn)\b")
_TOKEN = re.compile(r"\d+(?:\.\d+)?|%|[a-z]+")
STOPWORDS = frozenset(
    "a an the user users is are am be been being to of for in on at by and or with it its that this these "
    "those their they them he she his her him i me my we our us you your has have had do does did will "
    "would shall should can could also just so as about into from s".split()
)


def _scaled(number: str, factor: str) -> str:
    return format((Decimal(number) * _FACTORS[factor]).normalize(), "f")


def _canon_number(token: str) -> str:
    try:
        return format(Decimal(token).normalize(), "f")
    except InvalidOperation:
        return token


_NOT_PLURAL = frozenset("this his always perhaps tennis paris christmas lens series species".split())


def _stem(token: str) -> str:
    """Fold plurals only: 'flights' -> 'flight', 'allergies' -> 'allergy', 'dishes' -> 'dish'."""
    if len(token) <= 3 or not token.endswith("s") or token.endswith(("ss", "us", "sis")) or token in _NOT_PLURAL:
        return token
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if token.endswith(("ches", "shes", "xes", "zes", "sses")):
        return token[:-2]
    return token[:-1]


def fact_tokens(text: str) -> list[str]:
    """Lower-case word/number tokens: '$3,000' = '3k' = '3000' = '3 thousand'; plurals folded.

    Numbers are whole tokens, so matching a token sequence is word-boundary safe ('2' != '12').
    """
    t = unicodedata.normalize("NFKC", text).lower().replace("’", "'").replace("‘", "'")
    t = re.sub(r"\bcan't\b|\bcannot\b", "can not", t).replace("won't", "will not").replace("n't", " not")
    t = re.sub(r"'s\b", "", t)
    t = _THOUSANDS.sub("", t)
    t = _MONEY_M.sub(lambda m: " " + _scaled(m[2], m[3]), t)
    t = re.sub(r"[$€£¥₹]", " ", t)
    t = _MAGNITUDE.sub(lambda m: _scaled(m[1], m[2]), t)
    t = re.sub(r"\bper ?cent\b", "%", t)
    out = []
    for tok in _TOKEN.findall(t):
        if tok[0].isdigit():
            out.append(_canon_number(tok))
        else:
            out.append(_NUMBER_WORDS.get(tok) or _stem(tok))
    return out


def content_tokens(text: str) -> list[str]:
    """`fact_tokens` without stopwords (so 'User's budget is $3,000' ~ 'Budget: 3k')."""
    return [t for t in fact_tokens(text) if t not in STOPWORDS]


_BULLET = re.compile(r"^\s*(?:[-*•+>]+|\d+[.)]|\[[ xX]?\])\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(A-Z0-9])|;\s+")
_SECTION_NAMES = frozenset([
    "facts", "key facts", "user facts", "known facts", "preferences", "user preferences", "style",
    "decisions", "topics", "entities", "timeline", "context", "summary", "notes", "constraints",
    "goals", "plans", "overview", "memory", "open questions", "finances", "financials", "profile",
])
_EMPTY_VALUES = frozenset(["none", "n/a", "na", "tbd", "nothing", "nothing yet", "none yet", "unknown", "-"])
_PLACEHOLDER = re.compile(
    r"placeholder|no context yet|context (is )?empty|empty (context|memory)|default context"
    r"|^instructions for (the )?ai agent\b"
    r"|^no (new )?(facts|updates|information)( yet)?\b|^last updated\b|^updated( on| at)?\s*:?\s*\d",
    re.IGNORECASE,
)


def _is_boilerplate(line: str) -> bool:
    bare = line.strip().strip("*_`").strip()
    if not re.search(r"[A-Za-z0-9]", bare) or bare.startswith("#") or bare.endswith(":"):
        return True
    low = re.sub(r"[^a-z/ -]", "", bare.lower()).strip()
    if low in _SECTION_NAMES or low in _EMPTY_VALUES or _PLACEHOLDER.search(bare):
        return True
    _, sep, value = bare.partition(":")
    return bool(sep) and value.strip().strip(".").lower() in _EMPTY_VALUES


def split_facts(text: str) -> list[str]:
    """Split written text into candidate atomic facts: one per line/bullet and sentence."""
    out = []
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        line = raw.strip()
        if line.startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|?[\s:|-]+\|?", lines[i + 1].strip()):
            continue  # a table's header row
        if line.startswith("|"):  # markdown table row -> "cell: cell"
            line = ": ".join(c.strip() for c in line.strip("|").split("|") if c.strip())
        line = _BULLET.sub("", line)
        if _is_boilerplate(line):
            continue
        for part in _SENTENCE_END.split(line):
            part = part.strip().strip(";").strip()
            if part and not _is_boilerplate(part):
                out.append(part)
    return out


def _entry_tags(entry: dict[str, Json]) -> dict[str, Json]:
    tags = entry.get("tags") or {}
    if isinstance(tags, str):  # some servers hand tags back as a JSON string
        try:
            tags = json.loads(tags)
        except json.JSONDecodeError:
            return {}
    return tags if isinstance(tags, dict) else {}


def extracted_facts_from_memory(
    new_entries: list[dict[str, Json]],
    latest_context: str,
    existing_memory: list[str] | tuple[str, ...],
    *,
    include_assistant_entries: bool = False,
) -> list[str]:
    """Candidate NEW facts from what the agent wrote: entry summaries + context lines.

    Entries use `summary` (else the raw text); entries tagged role=assistant log the assistant's
    turns, not facts the user stated, so they are skipped unless asked for; so are the seeding
    entries of `seed_memory_plan` (tag `seed`), should they be passed in. A candidate whose
    content words all occur in one existing-memory fact adds nothing new and is dropped; so
    are headers, placeholders and duplicates (same content words).
    """
    candidates: list[str] = []
    for entry in new_entries:
        tags = _entry_tags(entry)
        if tags.get("seed") or (tags.get("role") == "assistant" and not include_assistant_entries):
            continue
        text = entry.get("summary") or entry.get("rawEntry") or entry.get("raw_entry") or ""
        candidates += split_facts(str(text))
    candidates += split_facts(latest_context or "")
    return new_facts(candidates, existing_memory)


def new_facts(candidates: list[str], existing_memory: list[str] | tuple[str, ...]) -> list[str]:
    """The candidates with content words that no existing-memory fact already holds (all their content
    words in one existing fact), each once (same content words), in order."""
    existing = [set(content_tokens(f)) for f in existing_memory]
    out: list[str] = []
    seen: set[frozenset[str]] = set()
    for cand in candidates:
        key = frozenset(content_tokens(cand))
        if not key or key in seen or any(key <= e for e in existing):
            continue
        seen.add(key)
        out.append(cand)
    return out


def context_facts(latest_context: str) -> list[str]:
    """Every fact the context document presents (existing ones included), for the stale check."""
    return extracted_facts_from_memory([], latest_context, [])
