"""LoCoMo (snap-research/LoCoMo, `data/locomo10.json`): long conversations between two people,
each ingested once into one memory and then asked all of its questions.

The file is a JSON list of samples: `sample_id`; `conversation` with `speaker_a`, `speaker_b`,
`session_<N>` (turns `{"speaker", "dia_id": "D<N>:<i>", "text"}`, some with `img_url` and
`blip_caption`) and `session_<N>_date_time` ("1:56 pm on 8 May, 2023"); `qa`, a list of
`{"question", "answer", "evidence": ["D<N>:<i>"], "category"}` (category 5 has
`adversarial_answer` instead of `answer`).

How a sample becomes a Case (one memory):
- sessions in session-number order (the file's chronological order), session id `session_<N>`,
  the date rewritten to LongMemEval's form "2023/05/08 (Mon) 13:56" (the raw text when it does
  not parse), so the reader and the temporal helpers see one date format;
- a turn becomes a message whose role is the SPEAKER'S NAME (two people, not user/assistant);
  a shared photo is kept as text: "<text> [shared a photo: <blip_caption>]";
- a question's `question_type` is its category name (CATEGORY_NAMES; results also keep the
  number in `category`), its id `<sample_id>-q<NNN>` (1-based position in `qa`) with `_abs` for
  category 5, which the harness scores as abstention: the gold answer is NOT_MENTIONED and the
  trap (`adversarial_answer`) is kept in the rubric;
- evidence "D<N>:<i>" is turn i-1 of session N: turn-level retrieval evidence; its sessions are
  `answer_session_ids`. Slips are repaired ("D:11:26" is D11:26; evidence.py); an id that cannot
  be read or names a turn that does not exist is dropped, and each is listed with its question and
  reason (`dropped`, `repaired`; the question's `evidence` keeps its own);
- LoCoMo gives no question date: `question_date` is the last session's date.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarker.datasets.kinds import looks_like
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.errors import DatasetError
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import Json
from benchmarker.suites.locomo.evidence import NO_TURN, UNPARSEABLE, canonical, parse_evidence
from benchmarker.suites.locomo.shapes import DroppedId, RepairedId

# LoCoMo's `category` -> the question_type every results line carries. Category 5 (adversarial:
# the answer was never stated; the right reply says so) is reported separately, as abstention.
CATEGORY_NAMES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ADVERSARIAL = 5
QUESTION_TYPES = tuple(CATEGORY_NAMES[c] for c in sorted(CATEGORY_NAMES))
NOT_MENTIONED = "Not mentioned in the conversation."
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M%p on %d %B, %Y")


@dataclass(frozen=True)
class DroppedEvidence:
    question_id: str
    id: str        # as written
    reason: str    # UNPARSEABLE or NO_TURN


@dataclass(frozen=True)
class RepairedEvidence:
    question_id: str
    id: str        # as written
    canonical: str


@dataclass
class LocomoFile:
    """A parsed, validated LoCoMo file: its cases (every question), the evidence ids dropped (with
    why) and those repaired."""

    cases: list[Case]
    dropped: list[DroppedEvidence] = field(default_factory=list)
    repaired: list[RepairedEvidence] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def dropped_evidence(self) -> int:
        return len(self.dropped)

    def index(self) -> list[tuple[str, str]]:
        """(question_id, question_type) of every question, in file order (for [run] selection)."""
        return [(q.question_id, q.question_type) for case in self.cases for q in case.questions]


def locomo_date(raw: str) -> str:
    """LoCoMo's "1:56 pm on 8 May, 2023" as LongMemEval's "2023/05/08 (Mon) 13:56"."""
    text = " ".join(str(raw).split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).strftime("%Y/%m/%d (%a) %H:%M")
        except ValueError:
            continue
    return text


def turn_text(turn: dict[str, Json]) -> str:
    """A turn's text, with a shared photo described by its caption."""
    text = str(turn.get("text") or "").strip()
    caption = str(turn.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [shared a photo: {caption}]".strip()
    return text


def load_locomo(path: Path) -> LocomoFile:
    """Every sample of the file as a Case; DatasetError lists every problem (sample, id, field)."""
    try:
        data = load_json(Path(path).read_bytes())
    except UnicodeDecodeError as err:
        raise DatasetError(f"{path}: not UTF-8 ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise DatasetError(f"{path}: not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}") from None
    if not isinstance(data, list) or not data:
        raise DatasetError(f"{path}: a LoCoMo file is a non-empty JSON list of samples "
                           f"(got {type(data).__name__}{' (empty)' if data == [] else ''})")
    if isinstance(data[0], dict) and not data[0].get("sample_id") and (hint := looks_like(data[0], "locomo")):
        raise DatasetError(f"{path}: {hint}")   # one line, not "missing sample_id" on every record
    parsed = LocomoFile(cases=[])
    seen: set[str] = set()
    for index, sample in enumerate(data):
        where = f"{path}: sample {index}"
        if not isinstance(sample, dict):
            parsed.problems.append(f"{where}: expected an object, got {type(sample).__name__}")
            continue
        sample_id = str(sample.get("sample_id") or "").strip()
        if not sample_id:
            parsed.problems.append(f"{where}: missing sample_id")
            continue
        if sample_id in seen:
            parsed.problems.append(f"{where} ({sample_id}): sample_id repeated")
            continue
        seen.add(sample_id)
        case = _case(sample, sample_id, f"{where} ({sample_id})", parsed)
        if case is not None:
            parsed.cases.append(case)
    if parsed.problems:
        shown = "\n  ".join(parsed.problems[:20])
        more = f"\n  ... and {len(parsed.problems) - 20} more" if len(parsed.problems) > 20 else ""
        raise DatasetError(f"{path}: {len(parsed.problems)} problem(s) in the LoCoMo file:\n  {shown}{more}")
    return parsed


def _case(sample: dict[str, Json], sample_id: str, where: str, parsed: LocomoFile) -> Case | None:
    conversation = sample.get("conversation")
    if not isinstance(conversation, dict):
        parsed.problems.append(f"{where}: missing the conversation object")
        return None
    speakers = [str(conversation.get(k) or "").strip() for k in ("speaker_a", "speaker_b")]
    if not all(speakers):
        parsed.problems.append(f"{where}: conversation needs speaker_a and speaker_b")
    numbers = sorted(int(m.group(1)) for key in conversation if (m := _SESSION_KEY.match(key)))
    if not numbers:
        parsed.problems.append(f"{where}: the conversation has no session_<N> lists")
        return None
    sessions: list[Session] = []
    turns: set[tuple[int, int]] = set()
    for n in numbers:
        raw_turns = conversation.get(f"session_{n}")
        date = conversation.get(f"session_{n}_date_time")
        if not isinstance(raw_turns, list):
            parsed.problems.append(f"{where}: session_{n} is not a list of turns")
            continue
        if not isinstance(date, str) or not date.strip():
            parsed.problems.append(f"{where}: session_{n}_date_time is missing")
            continue
        messages = []
        for i, turn in enumerate(raw_turns):
            if not isinstance(turn, dict) or not str(turn.get("speaker") or "").strip() or not turn_text(turn):
                parsed.problems.append(f"{where}: session_{n} turn {i} needs a speaker and a text (or a photo caption)")
                continue
            messages.append(Message(role=str(turn["speaker"]).strip(), content=turn_text(turn)))
            turns.add((n, i))
        sessions.append(Session(session_id=f"session_{n}", date=locomo_date(date), messages=tuple(messages)))
    qa = sample.get("qa")
    if not isinstance(qa, list):
        parsed.problems.append(f"{where}: qa is not a list")
        return None
    last_date = sessions[-1].date if sessions else ""
    questions = []
    for position, item in enumerate(qa, start=1):
        question = _question(item, sample_id, position, f"{where} qa[{position - 1}]", turns, last_date, parsed)
        if question is not None:
            questions.append(question)
    return Case(case_id=sample_id, kind="locomo", sessions=tuple(sessions), questions=tuple(questions),
                metadata={"speakers": speakers, "dataset": "locomo"})


def _question(item: Any, sample_id: str, position: int, where: str, turns: set[tuple[int, int]],
              last_date: str, parsed: LocomoFile) -> Question | None:
    if not isinstance(item, dict) or not str(item.get("question") or "").strip():
        parsed.problems.append(f"{where}: needs a question")
        return None
    category = item.get("category")
    if isinstance(category, bool) or category not in CATEGORY_NAMES:
        parsed.problems.append(f"{where}: category {category!r} is not one of 1-5")
        return None
    adversarial = category == ADVERSARIAL
    gold = item.get("answer")
    if not adversarial and (gold is None or (isinstance(gold, str) and not gold.strip())):
        parsed.problems.append(f"{where}: category {category} needs an answer")
        return None
    question_id = f"{sample_id}-q{position:03d}" + ("_abs" if adversarial else "")
    found = parse_evidence(item.get("evidence"))
    kept = [(n, i) for n, i in found.ids if (n, i - 1) in turns]
    dropped: list[DroppedId] = [{"id": text, "reason": UNPARSEABLE} for text in found.unparseable]
    dropped += [{"id": canonical(n, i), "reason": NO_TURN} for n, i in found.ids if (n, i) not in kept]
    repaired: list[RepairedId] = [{"id": text, "as": fixed} for text, fixed in found.repaired]
    parsed.dropped += [DroppedEvidence(question_id, d["id"], d["reason"]) for d in dropped]
    parsed.repaired += [RepairedEvidence(question_id, text, fixed) for text, fixed in found.repaired]
    rubric = {"adversarial_answer": str(item.get("adversarial_answer") or gold or "")} if adversarial else {}
    evidence: dict[str, Any] = {"dia_ids": [canonical(n, i) for n, i in found.ids],
                                "turns": [[f"session_{n}", i - 1] for n, i in kept]}
    evidence |= ({"dropped": dropped} if dropped else {}) | ({"repaired": repaired} if repaired else {})
    return Question(
        question_id=question_id, question_type=CATEGORY_NAMES[category], question=str(item["question"]).strip(),
        answer=NOT_MENTIONED if adversarial else _answer_text(gold), question_date=last_date,
        answer_session_ids=tuple(dict.fromkeys(f"session_{n}" for n, _ in kept)), category=str(category),
        rubric=rubric, evidence=evidence)


def _answer_text(value: Any) -> str:
    """Answers may be numbers (2022, 3): the gold answer is always text."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def only_conversations(parsed: LocomoFile, conversations: Iterable[str], source: str) -> LocomoFile:
    """The file narrowed to the named conversations (`[dataset] conversations`, by sample_id; empty: all of
    them); DatasetError names each id the file lacks, with the closest it holds."""
    wanted = [str(c) for c in conversations]
    if not wanted:
        return parsed
    present = [case.case_id for case in parsed.cases]
    missing = [c for c in wanted if c not in present]
    if missing:
        close = {c: difflib.get_close_matches(c, present, n=1, cutoff=0.6) for c in missing}
        named = ", ".join(f"{c} (did you mean {close[c][0]}?)" if close[c] else c for c in missing)
        held = ", ".join(present[:20]) + (f" and {len(present) - 20} more" if len(present) > 20 else "")
        raise DatasetError(f"[dataset].conversations: conversation(s) {named} not in {source}; it holds {held}")
    keep = set(wanted)
    ids = {q.question_id for case in parsed.cases if case.case_id in keep for q in case.questions}
    return LocomoFile(cases=[case for case in parsed.cases if case.case_id in keep],
                      dropped=[d for d in parsed.dropped if d.question_id in ids],
                      repaired=[r for r in parsed.repaired if r.question_id in ids], problems=parsed.problems)


def select_locomo(parsed: LocomoFile, wanted: set[str]) -> Iterator[Case]:
    """The cases with at least one selected question, each keeping only its selected questions."""
    for case in parsed.cases:
        questions = tuple(q for q in case.questions if q.question_id in wanted)
        if questions:
            yield Case(case_id=case.case_id, kind=case.kind, sessions=case.sessions, questions=questions,
                       metadata=case.metadata)
