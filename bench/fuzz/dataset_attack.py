"""Group 5: broken LongMemEval files through the harness's own loading path (no service needed).

Each file goes through what a run does with `dataset_file`: the index pass, the selection, the
validation pass over the selected questions, then their streaming parse. A clean refusal is one of our UserError types
with a message naming the file; any other exception is the loader's "500" (a traceback for the
user); a loader process that dies or hangs is a crash. The loader runs in a child process with
a memory cap, because one hostile file must not take the fuzzer (or the machine) down with it.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import re
import resource
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.fuzz.outcome import Tally

MEMORY_CAP_BYTES = 1 << 30
DEEP = 100_000
Instance = dict[str, Any]


def load(path: str) -> tuple[str, str, str]:
    """(kind, what, message): ("loaded", n, ""), ("user_error", type, msg) or ("other", type, msg)."""
    from benchmarker.datasets.selection import select_question_ids
    from benchmarker.errors import UserError
    from benchmarker.suites.longmemeval.data import iter_longmemeval, scan_question_index, validate_longmemeval

    try:
        selected = set(select_question_ids(scan_question_index(path), source=path))
        validate_longmemeval(path, only_ids=selected)  # what a run does before any paid work
        cases = list(iter_longmemeval(path, only_ids=selected))
    except UserError as err:
        return "user_error", type(err).__name__, str(err)
    except Exception as err:
        return "other", type(err).__name__, str(err)[:300]
    return "loaded", str(len(cases)), ""


def _serve(conn: Connection, cap: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    while True:
        try:
            path = conn.recv()
        except EOFError:
            return
        if path is None:
            return
        conn.send(load(path))


class LoaderProcess:
    """A child process that loads one file at a time; replaced when a file kills or hangs it."""

    def __init__(self, cap: int = MEMORY_CAP_BYTES):
        self.cap = cap
        self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.cap), daemon=True)
        self.proc.start()
        child.close()

    def load(self, path: Path, timeout_s: float) -> tuple[str, str, str]:
        self.conn.send(str(path))
        if not self.conn.poll(timeout_s):
            self.proc.kill()
            self.proc.join()
            self._start()
            return "hang", f"{timeout_s:.0f} s", "no answer; the loader process was killed"
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self.proc.join()
            code = self.proc.exitcode
            self._start()
            return "died", f"exit code {code}", "the loader process died"

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


# -- the files ------------------------------------------------------------------------------------

def _with(field: str, value: Any) -> Callable[[Instance], Instance]:
    def mutate(instance: Instance) -> Instance:
        instance[field] = value
        return instance
    return mutate


def _without(field: str) -> Callable[[Instance], Instance]:
    def mutate(instance: Instance) -> Instance:
        instance.pop(field)
        return instance
    return mutate


def _message(key: str, value: Any) -> Callable[[Instance], Instance]:
    def mutate(instance: Instance) -> Instance:
        instance["haystack_sessions"][0][0][key] = value
        return instance
    return mutate


def _date(index: int, value: Any) -> Callable[[Instance], Instance]:
    def mutate(instance: Instance) -> Instance:
        instance["haystack_dates"][index] = value
        return instance
    return mutate


def _drop_date(instance: Instance) -> Instance:
    instance["haystack_dates"] = instance["haystack_dates"][:-1]
    return instance


REQUIRED = ("question_id", "question_type", "question", "answer", "question_date", "haystack_session_ids",
            "haystack_dates", "haystack_sessions", "answer_session_ids")


def instance_mutations() -> dict[str, Callable[[Instance], Instance]]:
    """Wrong types and bad dates in the first instance (the others stay valid)."""
    out: dict[str, Callable[[Instance], Instance]] = {}
    wrong = {"question_id": [5, None, "", ["a"]], "question_type": ["bogus", 5], "question": [None, 5],
             "answer": [["a"], True, None, {"a": 1}], "question_date": [5, "2023-05-20"],
             "haystack_session_ids": ["s1", [1]], "haystack_dates": ["2023/05/20 (Sat) 02:21", [5]],
             "haystack_sessions": [{}, "x", [5]], "answer_session_ids": ["x", [5]]}
    for field, values in wrong.items():
        for value in values:
            out[f"{field}={json.dumps(value)}"] = _with(field, value)
    out.update({f"missing-{field}": _without(field) for field in REQUIRED})
    out.update({f"message.{key}={json.dumps(value)}": _message(key, value) for key, value in (
        ("role", "system"), ("content", 5), ("content", None), ("has_answer", "yes"))})
    for value in ("", "2023-05-20", "2023/13/45 (Xyz) 25:61", "2023/02/30 (Thu) 10:00", "yesterday", None):
        out[f"haystack_dates[1]={json.dumps(value)}"] = _date(1, value)
    out["haystack_dates=one-short"] = _drop_date
    return out


def dataset_files(base: list[Instance]) -> dict[str, tuple[bytes, str]]:
    """{label: (file bytes, "accept" | "reject")}: one valid control, the rest broken."""
    good = json.dumps(base, indent=1).encode()
    files: dict[str, tuple[bytes, str]] = {"control": (good, "accept")}
    for label, mutate in instance_mutations().items():
        files[label] = (json.dumps([mutate(copy.deepcopy(base[0])), *base[1:]]).encode(), "reject")
    structure = {"empty-file": b"", "whitespace": b"  \n ", "empty-list": b"[]", "object": b"{}",
                 "string": b'"str"', "null": b"null", "list-of-number": b"[1]", "list-of-null": b"[null]",
                 "list-of-list": b"[[]]", "duplicate-ids": json.dumps([base[0], base[0]]).encode()}
    files.update({label: (data, "reject") for label, data in structure.items()})
    files.update({f"truncated-{pct}%": (good[: len(good) * pct // 100], "reject") for pct in (10, 50, 90)})
    files["truncated-last-byte"] = (good[:-2], "reject")
    content = json.dumps(base[0]["haystack_sessions"][0][0]["content"]).encode()
    inside = good.index(content) + len(content) // 2
    files["truncated-inside-string"] = (good[:inside], "reject")
    swap = lambda new: good.replace(content, content[:-1] + new + b'"', 1)  # noqa: E731
    files.update({
        "xff-in-string": (swap(b"\xff"), "reject"), "overlong-utf8": (swap(b"\xc0\xaf"), "reject"),
        "latin1-file": (_latin1(base), "reject"),
        "utf16-file": (json.dumps(base).encode("utf-16"), "reject"),
        "utf8-bom": (b"\xef\xbb\xbf" + good, "reject"), "raw-nul-in-string": (swap(b"\x00"), "reject"),
        "lone-surrogate-escape": (swap(b"\\ud800"), "reject"),
        "answer=NaN": (good.replace(b'"answer": ', b'"answer": NaN, "was": ', 1), "reject"),
        "answer=1e400": (good.replace(b'"answer": ', b'"answer": 1e400, "was": ', 1), "reject"),
        "answer=nested-100k": (good.replace(b'"answer": ', b'"answer": ' + b"[" * DEEP + b"]" * DEEP
                                            + b', "was": ', 1), "reject"),
    })
    return files


def _latin1(base: list[Instance]) -> bytes:
    """The file as Latin-1 bytes with an accented word in the first message (invalid UTF-8)."""
    changed = copy.deepcopy(base)
    changed[0]["haystack_sessions"][0][0]["content"] += " caf\u00e9"
    return json.dumps(changed, ensure_ascii=False).encode("latin-1", "replace")


def judge(expect: str, result: tuple[str, str, str], path: Path) -> tuple[str, str]:
    kind, what, message = result
    if kind in ("hang", "died"):
        return "crash", f"{what}: {message}"
    if kind == "other":
        return "5xx", f"uncaught {what}: {message}"
    if expect == "accept":
        return ("ok", "") if kind == "loaded" and int(what) > 0 else ("wrong", f"{what}: {message}")
    if kind == "loaded":
        return "accepted", f"loaded {what} cases"
    return ("clean", "") if path.name in message else ("unclear", f"{what} does not name the file: {message}")


def run(workdir: Path, tally: Tally, *, timeout_s: float = 60.0) -> Tally:
    from benchmarker.suites.sample.data import generate_sample

    base = generate_sample(seed=3, questions_per_type=1, sessions_per_question=3)
    folder = workdir / "datasets"
    folder.mkdir(parents=True, exist_ok=True)
    loader = LoaderProcess()
    try:
        for label, (data, expect) in dataset_files(base).items():
            path = folder / f"{re.sub(r'[^A-Za-z0-9.=-]+', '_', label)}.json"
            path.write_bytes(data)
            outcome, detail = judge(expect, loader.load(path, timeout_s), path)
            tally.add(outcome, f"dataset.{label}", detail)
    finally:
        loader.close()
    tally.extra["memory_cap_mib"] = MEMORY_CAP_BYTES >> 20
    return tally
