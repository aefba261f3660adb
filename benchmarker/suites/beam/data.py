"""Read BEAM conversations into Cases: one case per conversation, one session per batch.

Where the data comes from (`[dataset] file`):

    a BEAM clone                 <clone>/chats/<size>/<n>/chat.json + probing_questions/probing_questions.json
    its chats/ folder            <chats>/<size>/<n>/...
    one size's folder            <chats>/<size>/<n>/...  (the `size` key is then not needed to find it)
    one conversation's folder    <n>/chat.json + <n>/probing_questions/probing_questions.json
    a Hugging Face export        a .json array or .jsonl of rows {conversation_id, chat, probing_questions}
                                 (`chat` and `probing_questions` may be JSON or Python-literal strings)

A conversation's `chat` is, in the repository, a list of batches `{batch_number, time_anchor, turns}`
(turns: lists of messages `{role, id, content, time_anchor?, ...}`); a 10M conversation is a list of
`{"plan-k": [batches]}` (its `plan-N/` folders hold the same plans one by one); a Hugging Face row holds
batches as flat message lists, and a 10M row plans whose message ids restart at 0 (renumbered here the
way the repository's `combine_10m_chats` does, so the questions' `source_chat_ids` still point at them).

A batch becomes a session dated by its time anchor (the batch's, else its first message's, else the
previous batch's). User messages end with a `->-> B,T` marker (batch, turn) that BEAM's generator
wrote; it is stripped from the text the memory sees: nobody says it, and a retriever would match on
its numbers. Evidence: a question's `source_chat_ids` (a list, or a dict of lists) name message ids;
each maps to its [session_id, turn index] (turn-level retrieval evidence); an id that names no message
is dropped and counted.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.datasets.kinds import looks_like
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.errors import DatasetError
from benchmarker.log.json_limits import JsonLimitError, load_json
from benchmarker.log.lines import Json
from benchmarker.suites.beam.ids import SeenConversations, conversation_id, evidence_id, plan_number, whole_number

RECORD_KIND = "beam"   # the `kind` its cases and lines carry
SIZES = ("100K", "500K", "1M", "10M")
ABILITIES = ("abstention", "contradiction_resolution", "event_ordering", "information_extraction",
             "instruction_following", "knowledge_update", "multi_session_reasoning", "preference_following",
             "summarization", "temporal_reasoning")
# Where a question keeps its reference answer, in the order looked for (instruction and preference
# following have none: what compliance looks like stands in for it).
REFERENCE_KEYS = ("answer", "ideal_answer", "ideal_response", "ideal_summary", "expected_compliance")
CHAT_FILE, QUESTIONS_FILE = "chat.json", Path("probing_questions") / "probing_questions.json"
_MARKER = re.compile(r"\s*->->\s*\d+\s*,\s*(?:\d+|N/A)\s*$")   # "->-> 2,N/A" occurs too
_ANCHOR_FORMATS = ("%B-%d-%Y", "%b-%d-%Y", "%B %d, %Y", "%Y-%m-%d", "%m/%d/%Y")


class DroppedIds(TypedDict):
    """A question's evidence ids that name no message (the manifest's `dataset.evidence.dropped`)."""

    question_id: str
    ids: list[int]
    why: str


@dataclass
class Conversation:
    """One BEAM conversation as read: where from, its sessions, and each message id's place."""

    conversation_id: str
    source: str
    sessions: list[Session]
    places: dict[int, tuple[str, int]]          # message id -> (session_id, turn index)
    questions: dict[str, list[Json]]  # ability -> its probing questions, as in the file (questions_of checks each)
    tokens_estimate: int = 0


@dataclass
class Parsed:
    """Every conversation read (a test's or calibrate's whole view; a run streams them: iter_conversations)."""

    conversations: list[Conversation]

    def __iter__(self) -> Iterator[Conversation]:
        return iter(self.conversations)


# --- finding the files ------------------------------------------------------------------------

def conversation_dirs(path: Path, size: str) -> list[Path]:
    """The conversation folders under `path` (a clone, its chats/, one size's folder, or one conversation)."""
    if (path / CHAT_FILE).is_file():
        return [path]
    for base in (path / "chats" / size, path / size, path):
        if base.is_dir():
            found = [d for d in base.iterdir() if d.is_dir() and (d / CHAT_FILE).is_file()]
            if found:
                return sorted(found, key=_numeric_name)
    raise DatasetError(f"{path}: no BEAM conversation found: expected {path}/chats/{size}/<n>/{CHAT_FILE} (a BEAM "
                       f"clone), {path}/{size}/<n>/{CHAT_FILE}, {path}/<n>/{CHAT_FILE} or {path}/{CHAT_FILE}; "
                       f"set [dataset] file to your clone of github.com/mohammadtavakoli78/BEAM and size to one "
                       f"of {', '.join(SIZES)}")


def _numeric_name(path: Path) -> tuple[int, str]:
    number = whole_number(path.name)   # not str.isdigit(): a folder named "²" passes that, and int() refuses it
    return (number, "") if number is not None else (1 << 62, path.name)


def read_source(path: Path, size: str, chats: Iterable[str] = ()) -> Iterator[tuple[str, str, Any, Any]]:
    """(conversation id, source, chat, probing questions) of each wanted conversation, in order, one at a time."""
    wanted = [str(c) for c in chats]
    if path.is_file():
        rows = _rows(path)
        seen = SeenConversations()
        for i, row in rows:
            where = f"{path}: row {i}"
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: expected an object with conversation_id, chat and probing_questions, "
                                   f"got {type(row).__name__}")
            cid = conversation_id(row.get("conversation_id", i + 1), where)
            seen.add(cid, where, f"row {i}")
            if i == 0 and "chat" not in row and (hint := looks_like(row, "beam")):
                raise DatasetError(f"{path}: {hint}")
            if wanted and cid not in wanted:
                continue
            for key in ("chat", "probing_questions"):
                if key not in row:
                    raise DatasetError(f"{where} (conversation {cid}): missing field `{key}`")
            yield cid, where, _literal(row["chat"], f"{where}: chat"), \
                _literal(row["probing_questions"], f"{where}: probing_questions")
        _check_wanted(wanted, seen.ids(), str(path))
        return
    dirs = conversation_dirs(path, size)
    names = {conversation_id(d.name, str(d)) for d in dirs}
    _check_wanted(wanted, names, str(path))
    for folder in dirs:
        if wanted and folder.name not in wanted:
            continue
        chat_path, questions_path = folder / CHAT_FILE, folder / QUESTIONS_FILE
        if not questions_path.is_file():
            raise DatasetError(f"{questions_path}: not found (each BEAM conversation folder holds "
                               f"{QUESTIONS_FILE})")
        yield folder.name, str(folder), _json_file(chat_path), _json_file(questions_path)


def _check_wanted(wanted: list[str], present: set[str], source: str) -> None:
    missing = [c for c in wanted if c not in present]
    if missing:
        raise DatasetError(f"[dataset].chats: conversation(s) {', '.join(missing)} not in {source}; it holds "
                           f"{', '.join(sorted(present, key=lambda s: (len(s), s))[:20])}")


def _rows(path: Path) -> Iterator[tuple[int, Any]]:
    """Rows of a Hugging Face export: a JSON array, or JSON lines."""
    if path.suffix == ".jsonl":
        with open(path, "rb") as stream:   # bytes: a bad byte is named by its line, not by a decoder's chunk
            for n, raw in enumerate(stream, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DatasetError(f"{path}: line {n}: not UTF-8 at byte {exc.start}") from None
                if line.strip():
                    try:
                        yield n, load_json(line)
                    except json.JSONDecodeError as exc:
                        raise DatasetError(f"{path}: line {n}: not JSON ({exc.msg})") from None
                    except ValueError:   # a number past int()'s 4,300 digits
                        raise DatasetError(f"{path}: line {n}: holds a number too long to read") from None
        return
    data = _json_file(path)
    if isinstance(data, dict):   # {"100K": [rows]} or one row
        data = data.get("rows") or (next(iter(data.values())) if "chat" not in data else [data])
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected an array of rows {{conversation_id, chat, probing_questions}}")
    yield from enumerate(data)


def _json_file(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as stream:
            return load_json(stream.read())
    except FileNotFoundError:
        raise DatasetError(f"{path}: not found") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: line {exc.lineno} column {exc.colno}: not JSON ({exc.msg})") from None
    except ValueError:   # a number past int()'s 4,300 digits
        raise DatasetError(f"{path}: holds a number too long to read") from None


def _literal(value: Any, where: str) -> Any:
    """A field the Hugging Face rows hold as a JSON or Python-literal string (never evaluated as code)."""
    if not isinstance(value, str):
        return value
    json_problem = ""
    try:
        return load_json(value)
    except JsonLimitError as exc:  # a Python literal's quoted brackets can look deep: it may still parse below
        json_problem = f"; as JSON: {exc.msg}"
    except json.JSONDecodeError:
        pass
    except ValueError:   # a number past int()'s 4,300 digits; literal_eval refuses it too, below
        pass
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise DatasetError(f"{where}: neither JSON nor a Python literal ({type(exc).__name__}{json_problem})") from None


# --- conversations ----------------------------------------------------------------------------

def parse_conversation(cid: str, source: str, chat: Any, questions: Any) -> Conversation:
    """A conversation's sessions and questions, validated; DatasetError naming the source and field."""
    sessions: list[Session] = []
    places: dict[int, tuple[str, int]] = {}
    date = ""
    chars = 0
    for b, (anchor, messages) in enumerate(_batches(chat, f"{source}: chat"), 1):
        if anchor is not None and not isinstance(anchor, str):
            raise DatasetError(f"{source}: chat batch {b}: field `time_anchor` must be a string, "
                               f"got {type(anchor).__name__}")
        date = _date(anchor) or date
        session_id = f"beam-{cid}-b{b}"
        kept: list[Message] = []
        for j, raw in enumerate(messages):
            where = f"{source}: chat batch {b} message {j}"
            if not isinstance(raw, dict):
                raise DatasetError(f"{where}: expected an object {{role, id, content}}, got {type(raw).__name__}")
            role, content, mid = raw.get("role"), raw.get("content"), raw.get("id")
            if role not in ("user", "assistant"):
                raise DatasetError(f"{where}: field `role` must be \"user\" or \"assistant\", got {role!r}")
            if not isinstance(content, str):
                raise DatasetError(f"{where}: field `content` must be a string, got {type(content).__name__}")
            if isinstance(mid, int) and not isinstance(mid, bool):
                places.setdefault(mid, (session_id, len(kept)))
            kept.append(Message(role, _MARKER.sub("", content) if role == "user" else content))
            chars += len(content)
        if kept:
            sessions.append(Session(session_id, date, tuple(kept)))
    if not sessions:
        raise DatasetError(f"{source}: chat holds no messages")
    if not isinstance(questions, dict):
        raise DatasetError(f"{source}: probing_questions must be an object {{ability: [questions]}}, "
                           f"got {type(questions).__name__}")
    for ability, items in questions.items():
        if not isinstance(ability, str):   # a Python-literal row may key it by anything
            raise DatasetError(f"{source}: probing_questions: key {repr(ability)[:40]} must be a string (an ability name), "
                               f"got {type(ability).__name__}")
        if not isinstance(items, list):
            raise DatasetError(f"{source}: probing_questions.{ability} must be a list, got {type(items).__name__}")
    return Conversation(cid, source, sessions, places, questions, tokens_estimate=round(chars / 4))


def _batches(chat: Any, where: str) -> Iterator[tuple[str | None, list[Json]]]:
    """(time anchor, flat messages) of each batch, whatever the layout; plans renumbered like combine_10m_chats."""
    if not isinstance(chat, list):
        raise DatasetError(f"{where}: expected a list of batches, got {type(chat).__name__}")
    top = -1
    for k, item in enumerate(chat):
        plans = _plans(item, f"{where}[{k}]")
        if plans is None:
            yield _batch(item, where)
            continue
        for _, batches in plans:
            flat = [_batch(b, where) for b in batches]
            ids = [i for _, msgs in flat for m in msgs if isinstance(m, dict) and isinstance(i := m.get("id"), int)]
            shift = top + 1 if ids and top >= 0 and min(ids) <= top else 0
            for anchor, msgs in flat:
                yield anchor, [m | {"id": i + shift} if isinstance(m, dict) and isinstance(i := m.get("id"), int)
                               else m for m in msgs]
            top = max([top, *(i + shift for i in ids)])


def _plans(item: Any, where: str) -> list[tuple[int, list[Any]]] | None:
    """A 10M entry `{"plan-k": [batches], "plan-j": None, ...}` as (k, batches); None for a plain batch."""
    if not isinstance(item, dict) or not item:
        return None
    numbers = [plan_number(k, where) for k in item]
    if any(n is None for n in numbers):
        return None
    return sorted(((n, v) for n, v in zip(numbers, item.values(), strict=True) if n is not None and isinstance(v, list)),
                  key=lambda plan: plan[0])


def _batch(batch: Any, where: str) -> tuple[str | None, list[Json]]:
    if isinstance(batch, dict) and "turns" in batch:
        turns = batch["turns"]
        if not isinstance(turns, list):
            raise DatasetError(f"{where}: batch {batch.get('batch_number')}: field `turns` must be a list")
        messages = [m for turn in turns for m in (turn if isinstance(turn, list) else [turn])]
        return batch.get("time_anchor") or _first_anchor(messages), messages
    if isinstance(batch, list):
        return _first_anchor(batch), batch
    raise DatasetError(f"{where}: expected a batch {{batch_number, time_anchor, turns}} or a list of messages, "
                       f"got {type(batch).__name__}")


def _first_anchor(messages: list[Any]) -> str | None:
    return next((m["time_anchor"] for m in messages if isinstance(m, dict) and m.get("time_anchor")), None)


def _date(anchor: str | None) -> str:
    """A time anchor ("March-15-2024") in LongMemEval's date format, which the agent's prompts use."""
    if not anchor:
        return ""
    for fmt in _ANCHOR_FORMATS:
        try:
            return datetime.strptime(anchor.strip(), fmt).strftime("%Y/%m/%d (%a) 00:00")
        except ValueError:
            continue
    return anchor.strip()


# --- questions --------------------------------------------------------------------------------

def source_ids(item: dict[str, Json], where: str = "probing question") -> list[int]:
    """A question's evidence message ids: `source_chat_ids` as a list, or the lists of a dict, in order; a
    string that is not ASCII digits is one DatasetError naming `where`."""
    raw = item.get("source_chat_ids")
    values = raw.values() if isinstance(raw, dict) else [raw] if raw is not None else []
    ids: list[int] = []
    for value in values:
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, int) and not isinstance(one, bool) and one not in ids:
                ids.append(one)
            elif isinstance(one, str) and (number := evidence_id(one, where)) not in ids:
                ids.append(number)
    return ids


def reference_of(item: dict[str, Json], where: str) -> str:
    for key in REFERENCE_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    raise DatasetError(f"{where}: no reference answer: expected one of the fields {', '.join(REFERENCE_KEYS)}")


def questions_of(conv: Conversation, size: str, dropped: list[DroppedIds]) -> list[Question]:
    """Every probing question of the conversation, abilities in BEAM's order (others after, by name)."""
    out: list[Question] = []
    last_date = next((s.date for s in reversed(conv.sessions) if s.date), "")
    order = [a for a in ABILITIES if a in conv.questions] + sorted(set(conv.questions) - set(ABILITIES))
    for ability in order:
        for i, item in enumerate(conv.questions[ability]):
            where = f"{conv.source}: probing_questions.{ability}[{i}]"
            if not isinstance(item, dict):
                raise DatasetError(f"{where}: expected an object, got {type(item).__name__}")
            if not all(isinstance(key, str) for key in item):
                raise DatasetError(f"{where}: field names must be strings, got "
                                   f"{next(repr(k) for k in item if not isinstance(k, str))[:40]}")
            question = item.get("question")
            if not isinstance(question, str) or not question.strip():
                raise DatasetError(f"{where}: field `question` must be a non-empty string")
            rubric = item.get("rubric")
            if not isinstance(rubric, list) or not rubric or not all(isinstance(r, str) for r in rubric):
                raise DatasetError(f"{where}: field `rubric` must be a non-empty list of strings")
            qid = f"beam-{size}-{conv.conversation_id}-{ability}-{i}" + ("_abs" if ability == "abstention" else "")
            turns: list[list[str | int]] = []
            missing: list[int] = []
            evidence_ids = source_ids(item, where)
            for mid in evidence_ids:
                if mid in conv.places:
                    turns.append(list(conv.places[mid]))
                else:
                    missing.append(mid)
            if missing:
                dropped.append({"question_id": qid, "ids": missing, "why": "names no message of the conversation"})
            extra = {k: v for k, v in item.items() if k not in ("question", "rubric", *REFERENCE_KEYS)
                     and isinstance(v, (str, int, float, list, dict)) and k != "source_chat_ids"}
            out.append(Question(
                question_id=qid, question_type=ability, question=question, answer=reference_of(item, where),
                question_date=last_date, answer_session_ids=tuple(dict.fromkeys(str(t[0]) for t in turns)),
                category=ability, rubric={"items": list(rubric), "ability": ability, "fields": extra},
                evidence={"turns": turns, "message_ids": evidence_ids, **({"dropped": missing} if missing else {})}))
    return out


def iter_conversations(path: Path, size: str, chats: Iterable[str] = ()) -> Iterator[Conversation]:
    """Each wanted conversation of `path`, parsed and validated, one at a time (a 10M one is ~40 MB of text:
    never hold them all); DatasetError when there is none."""
    found = False
    for cid, source, chat, questions in read_source(path, size, chats):
        found = True
        yield parse_conversation(cid, source, chat, questions)
    if not found:
        raise DatasetError(f"{path}: no BEAM conversation to run")


def load_beam(path: Path, size: str, chats: Iterable[str] = ()) -> Parsed:
    """Every wanted conversation of `path`, parsed and validated (questions included), all at once."""
    return Parsed(list(iter_conversations(path, size, chats)))


def beam_cases(conversations: Iterable[Conversation], size: str, wanted: set[str] | None = None) -> Iterator[Case]:
    """One case per conversation holding its selected questions (a conversation with none is skipped)."""
    for conv in conversations:
        questions = tuple(q for q in questions_of(conv, size, []) if wanted is None or q.question_id in wanted)
        if questions:
            yield Case(case_id=f"beam-{size}-{conv.conversation_id}", kind=RECORD_KIND, sessions=tuple(conv.sessions),
                       questions=questions, metadata={"conversation_id": conv.conversation_id, "size": size,
                                                      "source": conv.source})


@dataclass
class Scan:
    """What planning needs of the data, read one conversation at a time: the (question_id, ability) index
    for selection, the evidence ids that name no message, and each conversation's id and size."""

    index: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[DroppedIds] = field(default_factory=list)
    conversations: list[str] = field(default_factory=list)
    tokens_estimate: int = 0


def scan(path: Path, size: str, chats: Iterable[str] = ()) -> Scan:
    """Validate every wanted conversation and index its questions, holding one conversation at a time."""
    got = Scan()
    for conv in iter_conversations(path, size, chats):
        got.index += [(q.question_id, q.question_type) for q in questions_of(conv, size, got.dropped)]
        got.conversations.append(conv.conversation_id)
        got.tokens_estimate += conv.tokens_estimate
    return got
