"""Group "batches": damaged batch journals and provider results files against the batch hub (issue 36).

A priced run that sends the reader's and the judge's calls through a provider's batch API keeps two
journals in its run directory: `batches.jsonl` (each batch's id and the request ids it was sent, fsynced
before anyone waits on it) and `batch_results.jsonl` (every answer fetched). Each case runs the real
`BatchHub` against a local fake of the provider's batch API (tests/fakes/batch_servers.py) over five
questions: a live run (its provider results file damaged, or killed while its batch waits), the journals
damaged, then a resume and a second resume over the same run directory. A journal that lost its own
batch's row (torn by a kill during its write, emptied, its custom_ids no list) is recovered by finding the
batch at the provider by its metadata (OpenAI) or refused before anything is sent (Anthropic: its batches
carry no metadata). Every case ends as:
  clean    handled: every good line's answer kept, nothing sent twice, the bad line named (file:line,
           or the batch and the line of the provider's file) in a warning or the call's error; or refused
           in one line that names the journal and how to run again, having sent nothing twice
  ok       a control, or damage that cannot matter, handled without a word
  unclear  handled, but nothing names the bad line
  lost     a good line's answer discarded: a call without its answer, or a resume that answers a
           question differently from the live run
  wrong    double-paid: a request sent again although a batch already answered it, or still may
  crash    an exception other than the call's own BatchFailed, or a hang
`extra` counts the requests each case submitted and the double-paid ones.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.fuzz.outcome import Tally
from benchmarker.agent.batch.anthropic_batches import AnthropicBatches
from benchmarker.agent.batch.hub import BatchFailed, BatchHub, BatchJournalDamaged
from benchmarker.agent.batch.model import BatchModel
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from benchmarker.agent.batch.protocol import BatchAPI
from tests.fakes.batch_servers import AnthropicBatchServer, OpenAIBatchServer

QUESTIONS = tuple(f"question {n}: where did I put item {n}?" for n in range(5))
CASE_TIMEOUT_S = 30.0   # a run longer than this is a hang


def answer(messages: list[dict[str, Any]]) -> str:
    """The fake provider's answer: the question echoed, so a misattributed answer shows."""
    text = messages[-1]["content"]
    return f"answer to: {text if isinstance(text, str) else text[0]['text']}"


class Warnings(logging.Handler):
    """The batch code's warnings while a case runs (where a damaged line is named)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@dataclass
class Run:
    """What one pass over the questions saw: an answer text or the exception, per question."""

    answers: dict[int, str] = field(default_factory=dict)
    failed: dict[int, BaseException] = field(default_factory=dict)


@dataclass
class World:
    """One case's provider fake, run directory and the questions' request ids."""

    server: Any
    provider: str
    run_dir: Path
    ids: list[str] = field(default_factory=list)

    def api(self) -> BatchAPI:
        if self.provider == "anthropic":
            return AnthropicBatches(self.server.base_url, "sk-ant-test")
        return OpenAIBatches(self.server.base_url, "sk-test")

    def hub(self) -> BatchHub:
        return BatchHub(self.api(), self.run_dir, poll_s=0.02, max_wait_s=CASE_TIMEOUT_S, max_requests=100,
                        collect_s=0.05)

    @staticmethod
    def model(hub: BatchHub) -> BatchModel:
        return BatchModel(hub, role="qa", model_id="m", temperature=0.0, max_tokens=64, ledger=None)

    def submitted(self) -> list[str]:
        """Every request id the provider was sent, in order (one per request, across batches)."""
        return [cid for batch in self.server.created for cid in batch]

    async def ask(self) -> Run:
        """Every question through a fresh hub (a new process over the same run directory)."""
        hub = self.hub()
        model = self.model(hub)
        self.ids = [model.request(q).custom_id for q in QUESTIONS]
        try:
            replies = await asyncio.gather(*[model.ainvoke(q) for q in QUESTIONS], return_exceptions=True)
        finally:
            await hub.aclose()
        run = Run()
        for n, reply in enumerate(replies):
            if isinstance(reply, BaseException):
                run.failed[n] = reply
            else:
                run.answers[n] = str(reply.content)
        return run

    def _journaled(self, ids: list[str]) -> bool:
        """Whether batches.jsonl holds a batch with these request ids (submitted, written down)."""
        path = self.run_dir / "batches.jsonl"
        return path.exists() and any(json.dumps(ids) in line for line in path.read_text(encoding="utf-8").splitlines())

    async def killed_while_waiting(self, asked: int = len(QUESTIONS)) -> None:
        """A live run over the first `asked` questions, stopped after its batch was submitted (and
        journaled), before it ended."""
        self.server.hold = True
        hub = self.hub()
        model = self.model(hub)
        self.ids = [model.request(q).custom_id for q in QUESTIONS]
        before = len(self.server.created)
        tasks = [asyncio.create_task(model.ainvoke(q)) for q in QUESTIONS[:asked]]
        while len(self.server.created) == before or not self._journaled(self.server.created[-1]):
            await asyncio.sleep(0.01)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await hub.aclose()


# ---- damage: provider results files (lines -> lines; `ids` are the request ids in question order)

Mangle = Callable[[list[str], list[str]], list[str]]


def _row_of(lines: list[str], cid: str) -> int:
    return next(n for n, line in enumerate(lines) if cid in line)


def not_json_in_the_middle(lines: list[str], ids: list[str]) -> list[str]:
    n = _row_of(lines, ids[1])
    return [*lines[:n], "this line is not JSON {", *lines[n + 1:]]


def torn_final_line(lines: list[str], ids: list[str]) -> list[str]:
    n = _row_of(lines, ids[4])
    return [*lines[:n], lines[n][: len(lines[n]) // 2], *lines[n + 1:]]


def result_never_sent(lines: list[str], ids: list[str]) -> list[str]:
    stranger = lines[0].replace(ids[0], "r" + "0" * (len(ids[0]) - 1))
    return [lines[0], stranger, *lines[1:]]


def duplicate_result(lines: list[str], ids: list[str]) -> list[str]:
    n = _row_of(lines, ids[0])
    return [*lines, lines[n].replace("answer to:", "a second, different answer to:")]


def error_then_good(lines: list[str], ids: list[str]) -> list[str]:
    """An error result for a request ahead of its good one: the good one is an answer in hand."""
    n = _row_of(lines, ids[2])
    row = json.loads(lines[n])
    if "result" in row:
        bad = {"custom_id": ids[2], "result": {"type": "errored", "error": {"type": "api_error", "message": "x"}}}
    else:
        bad = {"custom_id": ids[2], "error": None, "response": {"status_code": 500, "body": {"error": "x"}}}
    return [*lines[:n], json.dumps(bad), *lines[n:]]


def wrong_shape(lines: list[str], ids: list[str]) -> list[str]:
    """JSON with the request's id but a body of the wrong shape (a string where an object belongs)."""
    n = _row_of(lines, ids[1])
    row = json.loads(lines[n])
    row["result" if "result" in row else "response"] = "oops"
    return [*lines[:n], json.dumps(row), *lines[n + 1:]]


def usage_not_a_number(lines: list[str], ids: list[str]) -> list[str]:
    n = _row_of(lines, ids[3])
    row = json.loads(lines[n])
    if "result" in row:
        row["result"]["message"]["usage"]["input_tokens"] = "many"
    else:
        row["response"]["body"]["usage"]["prompt_tokens"] = "many"
    return [*lines[:n], json.dumps(row), *lines[n + 1:]]


def no_custom_id(lines: list[str], ids: list[str]) -> list[str]:
    n = _row_of(lines, ids[1])
    row = json.loads(lines[n])
    row["custom_id"] = 7
    return [*lines[:n], json.dumps(row), *lines[n + 1:]]


def not_an_object(lines: list[str], ids: list[str]) -> list[str]:
    return [lines[0], '["a", "list"]', *lines[1:]]


def crlf_and_blank_lines(lines: list[str], ids: list[str]) -> list[str]:
    return ["", *(line + "\r" for line in lines), "", "   "]


# ---- damage: the run directory's journals (run dir, request ids) after a live run

Edit = Callable[[Path, list[str]], None]


def _insert(path: Path, position: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(position, text)
    path.write_text("".join(lines), encoding="utf-8")


def journal_torn_in_the_middle(run_dir: Path, ids: list[str]) -> None:
    _insert(run_dir / "batches.jsonl", 0, '{"batch_id": "batch_9998", "custom_ids": ["x"]}\n{"batch_id": "to\n')


def journal_not_an_object(run_dir: Path, ids: list[str]) -> None:
    _insert(run_dir / "batches.jsonl", 0, '[1, 2, 3]\n"a string"\n')


def journal_ids_not_a_list(run_dir: Path, ids: list[str]) -> None:
    _insert(run_dir / "batches.jsonl", 0, '{"batch_id": "batch_9997", "custom_ids": 7}\n'
                                          '{"batch_id": "batch_9996", "custom_ids": "rabc"}\n')


def journal_torn_tail(run_dir: Path, ids: list[str]) -> None:
    with (run_dir / "batches.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"batch_id": "batch_9995", "custom_i')


def journal_final_line_unterminated(run_dir: Path, ids: list[str]) -> None:
    """The journal's last row is whole but has lost its newline (an editor, a copy): the next row
    appended must not cut it off, or the run after forgets the batch and pays for it again."""
    path = run_dir / "batches.jsonl"
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")


def _own_row(run_dir: Path) -> tuple[Path, list[str], int]:
    """batches.jsonl's lines and the number of the killed run's own batch row (the last submitted)."""
    path = run_dir / "batches.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return path, lines, max(n for n, line in enumerate(lines) if '"custom_ids"' in line)


def journal_own_row_torn(run_dir: Path, ids: list[str]) -> None:
    """The batch's own row cut in half, no newline: what a kill during its write leaves."""
    path, lines, n = _own_row(run_dir)
    path.write_text("".join(lines[:n]) + lines[n][: len(lines[n]) // 2], encoding="utf-8")


def journal_emptied(run_dir: Path, ids: list[str]) -> None:
    (run_dir / "batches.jsonl").write_text("", encoding="utf-8")


def journal_own_ids_not_a_list(run_dir: Path, ids: list[str]) -> None:
    path, lines, n = _own_row(run_dir)
    row = json.loads(lines[n])
    row["custom_ids"] = ",".join(row["custom_ids"])
    lines[n] = json.dumps(row) + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def journal_unknown_batch(run_dir: Path, ids: list[str]) -> None:
    """The journal names a batch the provider no longer knows (another account's key, deleted): its calls
    fail naming it, and the next run sends them again (nothing else can answer them)."""
    path = run_dir / "batches.jsonl"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(json.loads(text.splitlines()[0])["batch_id"], "batch_gone"), encoding="utf-8")


def results_torn_in_the_middle(run_dir: Path, ids: list[str]) -> None:
    path = run_dir / "batch_results.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if ids[1] in line)
    lines[n] = lines[n][: len(lines[n]) // 2] + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def results_torn_tail(run_dir: Path, ids: list[str]) -> None:
    path = run_dir / "batch_results.jsonl"
    text = path.read_text(encoding="utf-8")
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    path.write_text(text[: len(text) - len(last) - 1] + last[: len(last) // 2], encoding="utf-8")


def results_duplicate(run_dir: Path, ids: list[str]) -> None:
    path = run_dir / "batch_results.jsonl"
    first = next(line for line in path.read_text(encoding="utf-8").splitlines() if ids[0] in line)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(first.replace("answer to:", "a later, different answer to:") + "\n")


def results_wrong_types(run_dir: Path, ids: list[str]) -> None:
    """A row for a request ahead of its good one, with a text that is no text and usage that is no map."""
    _insert(run_dir / "batch_results.jsonl", 0,
            json.dumps({"custom_id": ids[2], "text": None, "usage": "lots", "error": ""}) + "\n"
            + json.dumps({"custom_id": ids[3], "text": "t", "usage": {"input": "many"}, "error": ""}) + "\n")


def results_not_an_object(run_dir: Path, ids: list[str]) -> None:
    _insert(run_dir / "batch_results.jsonl", 0, "null\n")


def results_never_sent(run_dir: Path, ids: list[str]) -> None:
    _insert(run_dir / "batch_results.jsonl", 0,
            json.dumps({"custom_id": "r-never-sent", "text": "stray", "usage": {}, "error": ""}) + "\n")


@dataclass(frozen=True)
class Case:
    """One attack: damage to the provider's file (live) or to the journals (between runs).

    `resend` are the questions whose answer may honestly be asked for again (its only good line was the
    damaged one); `names` is what a warning or error must contain to name the bad line."""

    label: str
    provider: str = "openai"
    mangle: Mangle | None = None
    edit: Edit | None = None
    killed: bool = False           # the live run is stopped while its batch waits (the journal has no answers)
    killed_again: bool = False     # the first kill asked 3 questions; after the damage, a run asks all 5
                                   # (a second batch is journaled) and is stopped too, before the resumes
    resend: frozenset[int] = frozenset()
    names: str = ""


CASES = (
    Case("control.live-and-resume"),
    Case("control.killed-and-resume", killed=True),
    Case("output.not-json-in-the-middle", mangle=not_json_in_the_middle, resend=frozenset({1}),
         names="output_file_id out-batch_0002 line 2: not valid JSON"),
    Case("output.not-json-in-the-middle.anthropic", provider="anthropic", mangle=not_json_in_the_middle,
         resend=frozenset({1}), names="results line 2: not valid JSON"),
    Case("output.torn-final-line", mangle=torn_final_line, resend=frozenset({4}), names="line 5: not valid JSON"),
    Case("output.result-for-an-id-never-sent", mangle=result_never_sent, names="a request it was not sent"),
    Case("output.duplicate-result", mangle=duplicate_result, names="a second result for"),
    Case("output.error-before-the-good-result", mangle=error_then_good, names="a second result for"),
    Case("output.wrong-shape", mangle=wrong_shape, resend=frozenset({1}), names="line 2"),
    Case("output.wrong-shape.anthropic", provider="anthropic", mangle=wrong_shape, resend=frozenset({1}),
         names="line 2"),
    Case("output.usage-not-a-number", mangle=usage_not_a_number, resend=frozenset({3}), names="line 4"),
    Case("output.usage-not-a-number.anthropic", provider="anthropic", mangle=usage_not_a_number,
         resend=frozenset({3}), names="line 4"),
    Case("output.custom-id-not-a-string", mangle=no_custom_id, resend=frozenset({1}), names="line 2: no custom_id"),
    Case("output.line-not-an-object", mangle=not_an_object, names="line 2: no custom_id"),
    Case("output.crlf-and-blank-lines", mangle=crlf_and_blank_lines),
    Case("journal.torn-line-in-the-middle", killed=True, edit=journal_torn_in_the_middle,
         names="batches.jsonl:2: not valid JSON"),
    Case("journal.lines-not-objects", killed=True, edit=journal_not_an_object, names="batches.jsonl:1"),
    Case("journal.custom-ids-not-a-list", killed=True, edit=journal_ids_not_a_list, names="batches.jsonl:1"),
    Case("journal.torn-final-line", killed=True, edit=journal_torn_tail, names="batches.jsonl:2"),
    Case("journal.final-line-without-newline", killed=True, killed_again=True,
         edit=journal_final_line_unterminated),
    Case("journal.batch-the-provider-does-not-know", killed=True, edit=journal_unknown_batch,
         resend=frozenset(range(5)), names="batch_gone"),
    # issue 42, 5: the batch's own row lost; found by its metadata (OpenAI) or refused (Anthropic)
    Case("journal.own-row-torn", killed=True, edit=journal_own_row_torn, names="batches.jsonl:1 (not valid JSON)"),
    Case("journal.own-row-torn.anthropic", provider="anthropic", killed=True, edit=journal_own_row_torn,
         names="batches.jsonl:1 (not valid JSON)"),
    Case("journal.emptied", killed=True, edit=journal_emptied, names="batches.jsonl is empty"),
    Case("journal.emptied.anthropic", provider="anthropic", killed=True, edit=journal_emptied,
         names="batches.jsonl is empty"),
    Case("journal.own-custom-ids-not-a-list", killed=True, edit=journal_own_ids_not_a_list,
         names="batches.jsonl:1 (custom_ids is not a list"),
    Case("journal.own-custom-ids-not-a-list.anthropic", provider="anthropic", killed=True,
         edit=journal_own_ids_not_a_list, names="batches.jsonl:1 (custom_ids is not a list"),
    Case("results.torn-line-in-the-middle", edit=results_torn_in_the_middle, resend=frozenset({1}),
         names="batch_results.jsonl:2: not valid JSON"),
    Case("results.torn-final-line", edit=results_torn_tail, resend=frozenset({4}),
         names="batch_results.jsonl:5"),
    Case("results.duplicate-answer", edit=results_duplicate, names="batch_results.jsonl:6"),
    Case("results.wrong-types", edit=results_wrong_types, names="batch_results.jsonl:1"),
    Case("results.line-not-an-object", edit=results_not_an_object, names="batch_results.jsonl:1"),
    Case("results.answer-for-an-id-never-sent", edit=results_never_sent),
)
QUICK_LABELS = {"control.live-and-resume", "journal.final-line-without-newline", "control.killed-and-resume",
                "output.not-json-in-the-middle",
                "output.wrong-shape", "output.duplicate-result", "journal.torn-line-in-the-middle",
                "journal.custom-ids-not-a-list", "results.wrong-types", "results.duplicate-answer",
                "journal.own-row-torn", "journal.emptied.anthropic"}


def _crashed(runs: list[Run]) -> str:
    """The first exception that is not the call's own BatchFailed (a traceback a user would see)."""
    for run in runs:
        for n, err in run.failed.items():
            if not isinstance(err, BatchFailed):
                return f"question {n}: {type(err).__name__}: {err}"[:300]
    return ""


def judge_refusal(case: Case, world: World, message: str) -> tuple[str, str]:
    """A resume that refused to start: clean when nothing was sent twice and its one line names the
    journal's line and how to go on."""
    sent = world.submitted()
    if len(sent) != len(set(sent)):
        return "wrong", f"double-paid before refusing: {len(sent)} requests for {len(set(sent))}"
    if "\n" in message or case.names not in message or "run the same command again" not in message:
        return "unclear", f"the refusal does not name {case.names!r} and how to go on: {message[:300]!r}"
    return "clean", ""


def judge(case: Case, world: World, runs: list[Run], warned: list[str]) -> tuple[str, str]:
    """Crash, then lost, then double-paid, then whether the bad line was named."""
    if crash := _crashed(runs):
        return "crash", crash
    final = runs[-1]
    if missing := sorted(set(range(len(QUESTIONS))) - set(final.answers)):
        return "lost", f"questions {missing} never answered: {[str(final.failed.get(n))[:120] for n in missing]}"
    first: dict[int, str] = {}
    for run in runs:
        for n, text in run.answers.items():
            first.setdefault(n, text)
            if text != first[n]:
                return "lost", f"question {n}: answered {first[n]!r}, then {text!r}"
    if wrong := [n for n, text in first.items() if text != answer([{"content": QUESTIONS[n]}])]:
        return "lost", f"questions {wrong} answered with another line's text: {[first[n] for n in wrong]}"
    live = runs[0]
    if discarded := sorted(set(live.failed) - case.resend) if not case.killed else []:
        return "lost", f"live run: good lines discarded for questions {discarded}: {str(live.failed[discarded[0]])[:200]}"
    sent = world.submitted()
    twice = sorted(n for n, c in enumerate(world.ids) if sent.count(c) > 1 and n not in case.resend)
    if twice or len(sent) > len(QUESTIONS) + len(case.resend):
        return "wrong", f"double-paid: questions {twice} sent again ({len(sent)} requests for {len(QUESTIONS)})"
    text = "\n".join([*warned, *(str(e) for run in runs for e in run.failed.values())])
    if case.names and case.names not in text:
        return "unclear", f"nothing names {case.names!r}: {text[-300:]!r}"
    return ("clean" if case.names else "ok"), ""


async def play(case: Case, run_dir: Path) -> tuple[str, str, int]:
    """The case's live run, its damage, two resumes; the outcome and the requests submitted."""
    server_type = AnthropicBatchServer if case.provider == "anthropic" else OpenAIBatchServer
    warned = Warnings()
    logger = logging.getLogger("benchmarker.agent.batch")
    logger.addHandler(warned)
    try:
        with server_type(answer) as server:
            world = World(server, case.provider, run_dir)
            runs: list[Run] = []
            if case.killed:
                await world.killed_while_waiting(3 if case.killed_again else len(QUESTIONS))
                runs.append(Run())
            else:
                server.mangle = (lambda lines: case.mangle(lines, world.ids)) if case.mangle else None
                runs.append(await world.ask())
            if case.edit is not None:
                case.edit(run_dir, world.ids)
            if case.killed_again:
                await world.killed_while_waiting()
            server.release()
            try:
                runs.append(await world.ask())
                runs.append(await world.ask())
            except BatchJournalDamaged as err:   # refused before sending anything
                outcome, detail = judge_refusal(case, world, str(err))
                return outcome, detail, len(world.submitted())
            outcome, detail = judge(case, world, runs, warned.lines)
            return outcome, detail, len(world.submitted())
    finally:
        logger.removeHandler(warned)


async def _bounded(step: Awaitable[tuple[str, str, int]]) -> tuple[str, str, int]:
    try:
        return await asyncio.wait_for(step, CASE_TIMEOUT_S)
    except TimeoutError:
        return "crash", f"hung for {CASE_TIMEOUT_S:g} s", 0
    except Exception as err:  # the fuzzer counts every escape as a crash
        return "crash", f"{type(err).__name__}: {err}"[:300], 0


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "batches"
    submitted: dict[str, int] = {}
    for number, case in enumerate(c for c in CASES if not quick or c.label in QUICK_LABELS):
        run_dir = base / f"case{number}"
        run_dir.mkdir(parents=True)
        outcome, detail, sent = asyncio.run(_bounded(play(case, run_dir)))
        tally.add(outcome, case.label, detail)
        submitted[case.label] = sent
    tally.extra["requests_submitted"] = submitted
    tally.extra["double_paid_cases"] = tally.counts["wrong"]
    return tally
