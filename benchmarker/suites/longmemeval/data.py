"""Stream LongMemEval JSON files into Cases, one question per Case, sessions in date order.

The M file is 2.7 GB, so nothing here loads a file whole: ijson (C backend) streams the
top-level array one instance at a time. Selecting a few questions skips the others at the
parser-event level, and stops reading once every wanted id was found. Every malformed instance
fails with a DatasetError naming the file, the instance index, the question id and the field.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from benchmarker.datasets.kinds import looks_like
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.errors import DatasetError

RECORD_KIND = "longmemeval"   # the `kind` its cases and lines carry
QUESTION_TYPES = (
    "single-session-user", "single-session-assistant", "single-session-preference",
    "multi-session", "temporal-reasoning", "knowledge-update",
)
DATE_EXAMPLE = "2023/05/20 (Sat) 02:21"
_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]{3}\))?\s*(\d{1,2}):(\d{2})\s*$")
_ROLES = frozenset(("user", "assistant"))
# A lone \\ud800 escape is valid JSON but no UTF-8 text. The pure-Python ijson backend yields it
# as a surrogate (checked on the question fields); the C backend turns it into "?", so the
# validation pass also checks the raw bytes (_SurrogateCheckingReader), message text included.
_SURROGATE = re.compile("[\ud800-\udfff]")
# The same in the raw bytes (ijson's C backend silently turns a lone surrogate escape into "?"):
# an unescaped \\uD800-\\uDBFF not followed by a low half, or a \\uDC00-\\uDFFF not preceded by a high one.
_LONE_SURROGATE_ESCAPE = re.compile(
    rb"(?<!\\)(?:\\\\)*(?:\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})")
MAX_DEPTH = 32  # LongMemEval nests 5 deep (array > instance > sessions > session > message)
_VALUE_STARTS = frozenset(("start_array", "string", "number", "boolean", "null"))
_REQUIRED = ("question_id", "question_type", "question", "answer", "question_date",
             "haystack_session_ids", "haystack_dates", "haystack_sessions", "answer_session_ids")


def parse_date(text: str) -> datetime | None:
    """`2023/05/20 (Sat) 02:21` -> datetime; None when it does not parse (weekday not checked)."""
    match = _DATE.match(text)
    if not match:
        return None
    try:
        year, month, day, hour, minute = (int(g) for g in match.groups())
        return datetime(year, month, day, hour, minute)
    except ValueError:
        return None


def find_longmemeval_file(repo: Path, variant: str) -> tuple[Path | None, list[Path]]:
    """Look for the variant's file in a LongMemEval clone: `data/` first, cleaned name first."""
    names = ([f"longmemeval_{variant}_cleaned.json", f"longmemeval_{variant}.json"]
             if variant != "oracle" else ["longmemeval_oracle.json"])
    tried = [folder / name for folder in (repo / "data", repo) for name in names]
    return next((p for p in tried if p.is_file()), None), tried


def iter_longmemeval(path: str | Path, *, only_ids: set[str] | None = None) -> Iterator[Case]:
    """Yield one Case per instance in file order; with `only_ids`, only those (others skipped)."""
    path = Path(path)
    with _open(path) as stream:
        yield from iter_stream(stream, str(path), only_ids=only_ids)


def iter_stream(stream: BinaryIO, source: str, *, only_ids: set[str] | None = None
                ) -> Iterator[Case]:
    """The loader on any binary stream (the generated sample goes through here too)."""
    seen: dict[str, int] = {}
    for index, raw in _iter_raw(stream, source, only_ids):
        case = parse_instance(raw, index=index, source=source)
        if case.case_id in seen:
            raise DatasetError(f"{source}: instance {index}: question_id {case.case_id!r} "
                               f"repeats instance {seen[case.case_id]}; ids must be unique")
        seen[case.case_id] = index
        yield case
    missing = sorted(set(only_ids or ()) - set(seen))
    if missing:
        raise DatasetError(f"{source}: {len(missing)} requested question ids are not in the "
                           f"file: {', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}")


def validate_longmemeval(path: str | Path, *, only_ids: set[str] | None = None, max_problems: int = 20) -> int:
    """Check every (selected) instance in one streaming pass before any paid work; return how many.

    A run would otherwise find a bad instance only when it reaches it, after paying for the
    questions before it. Every problem is collected (up to `max_problems`) so one fix-and-rerun
    cycle is enough; one instance is held in memory at a time, so the M file stays bounded.
    """
    path = Path(path)
    source, problems, checked = str(path), [], 0
    seen: dict[str, int] = {}
    with _open(path) as raw_stream:
        stream = _SurrogateCheckingReader(raw_stream)
        try:
            for index, raw in _iter_raw(stream, source, only_ids):
                checked += 1
                qid = raw.get("question_id") if isinstance(raw, dict) else None
                if isinstance(qid, str) and qid in seen:
                    problems.append(f"instance {index}: question_id {qid!r} repeats instance {seen[qid]}; "
                                    "ids must be unique")
                if isinstance(qid, str):
                    seen.setdefault(qid, index)
                try:
                    parse_instance(raw, index=index, source=source)
                except DatasetError as err:
                    problems.append(str(err).removeprefix(f"{source}: "))
        except DatasetError as err:  # broken JSON: nothing after it can be read
            problems.append(str(err).removeprefix(f"{source}: "))
    missing = sorted(set(only_ids or ()) - set(seen))
    if missing:
        problems.append(f"{len(missing)} requested question ids are not in the file: "
                        f"{', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}")
    if problems:
        shown = problems[:max_problems]
        more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        raise DatasetError(f"{source}: {len(problems)} problem(s) found before the run started (nothing was "
                           "paid for); fix them and run the same command again:\n  " + "\n  ".join(shown) + more)
    return checked


class _SurrogateCheckingReader:
    """A binary stream that raises DatasetError on a lone surrogate escape in the bytes it hands out.

    ijson's C backend replaces one with "?", so the parsed text can no longer show it; checking
    the raw bytes while the validation pass reads them costs one regex scan, no extra pass.
    """

    OVERLAP = 24  # bytes kept from the previous chunk: an escape pair spans 12

    def __init__(self, stream: BinaryIO):
        self._stream = stream
        self._tail = b""
        self._offset = 0  # bytes handed out before the current chunk

    def read(self, size: int = -1) -> bytes:
        chunk = self._stream.read(size)
        if b"\\u" in chunk or b"\\" in self._tail:
            window = self._tail + chunk
            # A high half ending the window may be paired in the next chunk: judged then (it is in the tail).
            found = next((m for m in _LONE_SURROGATE_ESCAPE.finditer(window)
                          if not chunk or m.end() + 6 <= len(window)), None)
            if found is not None:
                at = self._offset - len(self._tail) + found.end() - 6
                raise DatasetError(f"{getattr(self._stream, 'name', 'the file')}: a lone UTF-16 surrogate escape "
                                   f"{window[found.end() - 6:found.end()].decode('ascii')!r} near byte {at:,} "
                                   "(text that cannot be UTF-8; the JSON parser would turn it into '?'); "
                                   "fix or drop that character")
        self._tail = (self._tail + chunk)[-self.OVERLAP:]
        self._offset += len(chunk)
        return chunk

    def seek(self, offset: int, whence: int = 0) -> int:
        self._tail, position = b"", self._stream.seek(offset, whence)
        self._offset = position
        return position

    def tell(self) -> int:
        return self._stream.tell()


def scan_question_index(path: str | Path) -> list[tuple[str, str]]:
    """(question_id, question_type) of every instance, in file order, in one streaming pass.

    This pass runs first on every file, so it also refuses what no later pass should meet: an
    empty array, an instance that is not an object, a repeated question_id, and nesting deeper
    than MAX_DEPTH (ijson's prefixed events cost O(depth^2): a hostile file could exhaust memory).
    It reads prefix-free events and keeps the depth itself.
    """
    path, out = Path(path), []
    source = str(path)
    first: dict[str, int] = {}
    with _open(path) as stream:
        _check_top_level(stream, source)
        try:
            for index, qid, qtype in _scan_events(ijson.basic_parse(stream), source):
                if qid in first:
                    raise DatasetError(f"{source}: instance {index}: question_id {qid!r} repeats instance "
                                       f"{first[qid]}; ids must be unique")
                first[qid] = index
                out.append((qid, qtype))
        except ijson.JSONError as exc:
            raise _json_error(source, stream, len(out), exc) from None
        except UnicodeDecodeError as exc:
            raise _utf8_error(source, len(out), exc) from None
    if not out:
        raise DatasetError(f"{source}: holds no instances (an empty JSON array); nothing to benchmark")
    return out


def _scan_events(events: Iterable[tuple[str, Any]], source: str) -> Iterator[tuple[int, str, str]]:
    """(index, question_id, question_type) per instance from ijson.basic_parse events."""
    depth, index, key = 0, -1, None
    qid: Any = _MISSING
    qtype: Any = _MISSING
    keys: set[str] = set()   # the first instance's, to name the kind a file of another benchmark looks like
    for event, value in events:
        if event in ("start_map", "start_array"):
            depth += 1
            if depth > MAX_DEPTH:
                raise DatasetError(f"{source}: instance {max(index, 0)} (0-based): JSON nested deeper than "
                                   f"{MAX_DEPTH} levels; LongMemEval nests 5")
            if depth == 2:
                index += 1
                if event != "start_map":
                    raise _field_error(source, index, None, "(instance)", "a JSON object", [])
                qid = qtype = _MISSING
            elif depth == 3 and key in ("question_id", "question_type"):
                nested: Any = {} if event == "start_map" else []  # stands in for the value in the error
                qid, qtype = (nested, qtype) if key == "question_id" else (qid, nested)
            continue
        if event in ("end_map", "end_array"):
            depth -= 1
            if depth == 1:
                if index == 0 and qid is _MISSING and (hint := looks_like(keys, "longmemeval")):
                    raise DatasetError(f"{source}: {hint}")
                yield index, _scanned_id(source, index, qid), _scanned_type(source, index, qid, qtype)
            continue
        if event == "map_key":
            if depth == 2:
                key = value
                if index == 0:
                    keys.add(value)
            continue
        if depth == 1:  # a scalar instance
            index += 1
            raise _field_error(source, index, None, "(instance)", "a JSON object", value)
        if depth == 2 and key == "question_id":
            qid = value
        elif depth == 2 and key == "question_type":
            qtype = value


def _scanned_id(source: str, index: int, qid: Any) -> str:
    if not isinstance(qid, str) or not qid:
        raise _field_error(source, index, None, "question_id", "a non-empty string", qid)
    return qid


def _scanned_type(source: str, index: int, qid: str, qtype: Any) -> str:
    if not isinstance(qtype, str):
        raise _field_error(source, index, qid, "question_type", "a string", qtype)
    return qtype



# --- streaming -----------------------------------------------------------------------------

def _open(path: Path) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open the LongMemEval file ({exc.strerror}); check "
                           "dataset_file / dataset_repo_path in the config") from None


def _iter_raw(stream: BinaryIO | _SurrogateCheckingReader, source: str, only_ids: set[str] | None
              ) -> Iterator[tuple[int, Any]]:
    _check_top_level(stream, source)
    if only_ids is not None and not only_ids:
        return
    position = [0]  # index of the instance being read, for error messages
    try:
        if only_ids is None:
            for raw in ijson.items(stream, "item", use_float=True):
                yield position[0], raw
                position[0] += 1
        else:
            kept: deque[int] = deque()
            events = _select_events(ijson.parse(stream, use_float=True), only_ids, kept, position)
            for raw in ijson.items(events, "item"):
                yield kept.popleft(), raw
    except ijson.JSONError as exc:
        raise _json_error(source, stream, position[0], exc) from None
    except UnicodeDecodeError as exc:
        raise _utf8_error(source, position[0], exc) from None


def _select_events(events: Iterable[tuple[str, str, Any]], only_ids: set[str], kept: deque[int],
                   position: list[int]) -> Iterator[tuple[str, str, Any]]:
    """Pass through the events of wanted instances only; stop once all wanted ids were seen.

    An instance's events are buffered only until its top-level `question_id` shows up (first
    key in the real files, so the buffer is three events); unwanted ones are then drained
    event by event, never assembled into dicts and lists, and never validated.
    """
    remaining, index = set(only_ids), -1
    events = iter(events)
    for event in events:
        if event[0] != "item" or event[1] != "start_map":
            if event[0] == "item" and event[1] in _VALUE_STARTS:
                index += 1  # a non-object instance: keep it so parse_instance reports it
                position[0] = index
                kept.append(index)
            yield event
            continue
        index += 1
        position[0] = index
        buffer, keep, closed = [event], True, False
        for event in events:
            buffer.append(event)
            if event[0] == "item.question_id":
                keep = not isinstance(event[2], str) or event[1] != "string" or event[2] in only_ids
                remaining.discard(event[2] if isinstance(event[2], str) else "")
                break
            if event[0] == "item" and event[1] == "end_map":
                closed = True  # no question_id at all: keep it so the parser names the field
                break
        if keep:
            kept.append(index)
            yield from buffer
            if not closed:
                for event in events:
                    yield event
                    if event[0] == "item" and event[1] == "end_map":
                        break
            if not remaining:
                return
        elif not closed:
            for prefix, name, _ in events:
                if name == "end_map" and prefix == "item":
                    break


def _check_top_level(stream: BinaryIO | _SurrogateCheckingReader, source: str) -> None:
    head = stream.read(4096)
    stream.seek(0)
    start = head.lstrip()[:1]
    if not start:
        raise DatasetError(f"{source}: the file is empty; expected a JSON array of LongMemEval "
                           "instances")
    if start != b"[":
        raise DatasetError(f"{source}: expected a JSON array of LongMemEval instances at the top "
                           f"level, found {start!r}; is this a LongMemEval file?")


def _utf8_error(source: str, index: int, exc: UnicodeDecodeError) -> DatasetError:
    return DatasetError(f"{source}: not valid UTF-8 ({exc.reason}) while reading instance {index} (0-based); "
                        "save the file as UTF-8")


def _json_error(source: str, stream: BinaryIO | _SurrogateCheckingReader, index: int, exc: Exception) -> DatasetError:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    try:
        offset = f"near byte {stream.tell():,}"
    except (OSError, ValueError):
        offset = "at an unknown offset"
    return DatasetError(f"{source}: invalid or truncated JSON {offset} while reading instance "
                        f"{index} (0-based): {detail}. Re-download the file or check the disk.")


# --- one instance --------------------------------------------------------------------------

def parse_instance(raw: Any, *, index: int, source: str) -> Case:
    """Validate one raw instance and turn it into a Case (sessions stably sorted by date)."""
    if not isinstance(raw, dict):
        raise _field_error(source, index, None, "(instance)", "a JSON object", raw)
    qid = raw.get("question_id") if isinstance(raw.get("question_id"), str) else None

    def fail(field: str, expected: str, got: Any) -> DatasetError:
        return _field_error(source, index, qid, field, expected, got)

    for name in _REQUIRED:
        if name not in raw:
            raise fail(name, "the field to be present", _MISSING)
    for name in ("question_id", "question_type", "question", "question_date"):
        if not isinstance(raw[name], str):
            raise fail(name, "a string", raw[name])
    if not qid:
        raise fail("question_id", "a non-empty string", raw["question_id"])
    for name in ("question_id", "question", "question_date", "answer"):
        if isinstance(raw[name], str) and _SURROGATE.search(raw[name]):
            raise fail(name, "text without lone surrogates (\\ud800-\\udfff escapes)", raw[name])
    if raw["question_type"] not in QUESTION_TYPES:
        raise fail("question_type", "one of " + ", ".join(QUESTION_TYPES), raw["question_type"])
    if parse_date(raw["question_date"]) is None:
        raise fail("question_date", f"a date like {DATE_EXAMPLE!r}", raw["question_date"])
    answer = raw["answer"]
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise fail("answer", "a string or a number", answer)
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)
    ids, dates, sessions, evidence = (raw[n] for n in _REQUIRED[5:])
    for name, value in (("haystack_session_ids", ids), ("haystack_dates", dates),
                        ("answer_session_ids", evidence)):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(name, "a list of strings", value)
    if not isinstance(sessions, list):
        raise fail("haystack_sessions", "a list of sessions (lists of messages)", sessions)
    if not len(ids) == len(dates) == len(sessions):
        raise fail("haystack_sessions", "one entry per haystack_session_ids and haystack_dates "
                   f"entry ({len(ids)} ids, {len(dates)} dates)", f"{len(sessions)} sessions")
    parsed = []
    for j, (session_id, date, messages) in enumerate(zip(ids, dates, sessions, strict=True)):
        when = parse_date(date)
        if when is None:
            raise fail(f"haystack_dates[{j}]", f"a date like {DATE_EXAMPLE!r}", date)
        parsed.append((when, Session(session_id, date, _messages(messages, j, fail))))
    parsed.sort(key=lambda pair: pair[0])  # stable: same-minute sessions keep file order
    question = Question(question_id=qid, question_type=raw["question_type"],
                        question=raw["question"], answer=str(answer),
                        question_date=raw["question_date"], answer_session_ids=tuple(evidence))
    return Case(case_id=qid, kind=RECORD_KIND, sessions=tuple(s for _, s in parsed),
                questions=(question,), metadata={"index": index})


def _messages(messages: Any, j: int, fail: Any) -> tuple[Message, ...]:
    if not isinstance(messages, list):
        raise fail(f"haystack_sessions[{j}]", "a list of messages", messages)
    out = []
    for k, msg in enumerate(messages):  # hot loop: ~3M messages in the M file
        if type(msg) is dict:
            role, content = msg.get("role"), msg.get("content")
            has_answer = msg.get("has_answer") or False
            if role in _ROLES and type(content) is str and type(has_answer) is bool:
                out.append(Message(role, content, has_answer))
                continue
        raise _message_error(msg, f"haystack_sessions[{j}][{k}]", fail)
    return tuple(out)


def _message_error(msg: Any, field: str, fail: Any) -> DatasetError:
    if not isinstance(msg, dict):
        return fail(field, 'a message object {"role", "content", "has_answer"}', msg)
    if msg.get("role") not in _ROLES:
        return fail(field + ".role", '"user" or "assistant"', msg.get("role", _MISSING))
    if not isinstance(msg.get("content"), str):
        return fail(field + ".content", "a string", msg.get("content", _MISSING))
    return fail(field + ".has_answer", "true or false (or absent)", msg["has_answer"])


_MISSING = object()


def _field_error(source: str, index: int, qid: str | None, field: str, expected: str,
                 got: Any) -> DatasetError:
    who = f"instance {index} (0-based)" + (f", question_id {qid!r}" if qid else "")
    if got is _MISSING:
        shown = "nothing (field missing)"
    else:
        shown = f"{type(got).__name__} {_preview(got)}"
    return DatasetError(f"{source}: {who}: field `{field}`: expected {expected}, got {shown}")


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
