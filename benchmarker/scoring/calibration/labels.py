"""The inputs of a calibration: gold answers from a LongMemEval-format file and labelled answers.

Gold: any JSON array of objects with `question_id`, `question_type`, `question` and `answer`
(a full LongMemEval file, streamed with ijson so its haystacks are never held, or a questions-only
file such as ../shared/data/judge/longmemeval_questions.json).

Labels, one JSON object a line, in either form:

    {"question_id", "hypothesis", "autoeval_label": {"model", "label": true|false}}   (LongMemEval's eval-results)
    {"question_id", "hypothesis", "label": true|false[, "model"]}                    (plain)

Every problem of every file (malformed line, missing field, label not a boolean, unknown id,
an id twice in one file) is collected and raised as one UserError, one `file:line: problem` a line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ijson

from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import ResultLine
from benchmarker.log.records import DEFAULT_RECORD_KIND

Scalar = str | int | float | bool   # a top-level field of a dataset instance as ijson reads it (nested ones skipped)
GOLD_FIELDS = ("question_id", "question_type", "question", "answer")


@dataclass(frozen=True)
class Gold:
    question_id: str
    question_type: str
    question: str
    answer: str
    kind: str = DEFAULT_RECORD_KIND   # the record kind whose suite scores it (benchmarker.score)


@dataclass(frozen=True)
class LabelledAnswer:
    """One labelled answer, joined with its gold question."""

    file: str            # the labels file's name (its rows in the report)
    line: int            # 1-based line in that file
    gold: Gold
    hypothesis: str
    label: bool          # the labeller's verdict: True = correct
    model: str           # who labelled it ("" when the file does not say)

    @property
    def abstention(self) -> bool:
        return self.gold.question_id.endswith("_abs")

    @property
    def key(self) -> str:
        """What a verdict depends on: the same answer to the same question is judged once."""
        g = self.gold
        text = json.dumps([g.question_id, g.question_type, g.question, g.answer, self.hypothesis], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]

    def record(self) -> ResultLine:
        """The answer line the judge (benchmarker.score.score) grades."""
        g = self.gold
        return {"kind": g.kind, "case_id": g.question_id, "question_id": g.question_id,
                "question_type": g.question_type, "question": g.question, "answer": g.answer,
                "hypothesis": self.hypothesis, "is_abstention": self.abstention}


def _text(value: Any) -> str:
    """A gold answer as text: LongMemEval has numeric answers (ijson gives them as numbers)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_gold(path: Path) -> dict[str, Gold]:
    """question_id -> Gold, streamed; every missing field and repeated id listed at once."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: the dataset file ([dataset] file) does not exist")
    problems: list[str] = []
    gold: dict[str, Gold] = {}
    try:
        for index, item in enumerate(_items(path)):
            missing = [f for f in GOLD_FIELDS if f not in item]
            if missing:
                problems.append(f"{path}: instance {index}: missing {', '.join(missing)}")
                continue
            qid = str(item["question_id"])
            if qid in gold:
                problems.append(f"{path}: instance {index}: question_id {qid!r} repeats an earlier instance")
                continue
            gold[qid] = Gold(qid, str(item["question_type"]), str(item["question"]), _text(item["answer"]))
    except (ijson.JSONError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not a JSON array of questions ({exc})") from None
    if problems:
        raise UserError(f"{len(problems)} problem(s) in the dataset file:\n" + _listed(problems))
    if not gold:
        raise UserError(f"{path}: holds no questions")
    return gold


def _items(path: Path) -> Iterator[dict[str, Scalar]]:
    """The top-level scalar fields of each instance of a JSON array (nested values are skipped)."""
    with path.open("rb") as stream:
        item: dict[str, Scalar] | None = None
        for prefix, event, value in ijson.parse(stream, use_float=True):
            if prefix == "item" and event == "start_map":
                item = {}
            elif prefix == "item" and event == "end_map" and item is not None:
                yield item
                item = None
            elif item is not None and event in ("string", "number", "boolean") and prefix.count(".") == 1:
                item[prefix.split(".", 1)[1]] = value
            elif prefix == "" and event not in ("start_array", "end_array"):
                raise ijson.JSONError("the top level is not an array")


def read_labels(paths: list[Path], gold: dict[str, Gold]) -> list[LabelledAnswer]:
    """Every labelled answer of every file, in order; raises one UserError listing every problem."""
    problems: list[str] = []
    out: list[LabelledAnswer] = []
    names = file_names(paths)
    for i, (path, name) in enumerate(zip(paths, names, strict=True)):
        if Path(path).resolve() in [Path(p).resolve() for p in paths[:i]]:
            problems.append(f"{path}: given twice (each labels file once)")
            continue
        if not Path(path).is_file():
            problems.append(f"{path}: no such labels file")
            continue
        seen: dict[str, int] = {}
        count = 0
        with Path(path).open("rb") as raw_lines:
            for number, raw in enumerate(raw_lines, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:  # never read a replaced character as an answer
                    problems.append(f"{path}:{number}: not UTF-8 (bad byte at column {exc.start + 1})")
                    continue
                if not text.strip():
                    continue
                count += 1
                parsed = _parse_line(text, gold)
                if isinstance(parsed, str):
                    problems.append(f"{path}:{number}: {parsed}")
                    continue
                qid, hypothesis, label, model = parsed
                if qid in seen:
                    problems.append(f"{path}:{number}: duplicate question_id {qid!r} (first on line {seen[qid]})")
                    continue
                seen[qid] = number
                out.append(LabelledAnswer(name, number, gold[qid], hypothesis, label, model))
        if not count:
            problems.append(f"{path}: holds no labelled answers")
    if problems:
        raise UserError(f"{len(problems)} problem(s) in the labels:\n" + _listed(problems))
    return out


def _parse_line(text: str, gold: dict[str, Gold]) -> tuple[str, str, bool, str] | str:
    """(question_id, hypothesis, label, model), or what is wrong with the line."""
    try:
        obj = load_json(text)
    except json.JSONDecodeError as exc:
        return f"not a JSON object ({exc.msg})"
    if not isinstance(obj, dict):
        return f"not a JSON object (a {type(obj).__name__})"
    qid, hypothesis = obj.get("question_id"), obj.get("hypothesis")
    if not isinstance(qid, str) or not qid:
        return "no question_id (a non-empty string)"
    if not isinstance(hypothesis, str):
        return f"question_id {qid!r}: no hypothesis (a string)"
    auto = obj.get("autoeval_label")
    if isinstance(auto, dict):
        label, model = auto.get("label"), auto.get("model")
    elif "label" in obj:
        label, model = obj.get("label"), obj.get("model")
    else:
        return f"question_id {qid!r}: no label (autoeval_label.label or label)"
    if not isinstance(label, bool):
        return f"question_id {qid!r}: label {label!r} is not true or false"
    if qid not in gold:
        return f"unknown question_id {qid!r} (not in the dataset file)"
    return qid, hypothesis, label, str(model or "")


def file_names(paths: list[Path]) -> list[str]:
    """Each file's name for the report; the full path where two files share a name."""
    bare = [Path(p).name for p in paths]
    return [Path(p).name if bare.count(Path(p).name) == 1 else str(p) for p in paths]


SHOWN_PROBLEMS = 20


def _listed(problems: list[str]) -> str:
    """The first SHOWN_PROBLEMS problems, then how many more (a million unknown ids is one screen, not 86 MB)."""
    shown = problems[:SHOWN_PROBLEMS]
    more = len(problems) - len(shown)
    return "\n".join(shown + ([f"... and {more} more like these"] if more else []))
