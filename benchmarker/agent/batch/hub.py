"""Gather calls into batches, make each submitted batch durable, wait for it, hand each answer back.

A call waits in `pending` until `max_requests` calls wait or `collect_s` passed since the first one;
then one batch takes them (one model per batch). Its id goes to `batches.jsonl` (fsynced) before
anyone waits on it; every answer fetched goes to `batch_results.jsonl`. A restarted run reads both:
a call whose answer is there gets it at once, a call in a submitted batch waits on that batch, and
only a call never submitted goes into a new batch. A custom id is a hash of the whole request, so the
same question asked again is the same request.

While a call waits, its case gives back its place among `[run] concurrency` (`case_slot`): other
cases ingest meanwhile, and more calls join the next batch.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarker.agent.batch.apis import BatchAPI, BatchReply, BatchRequest
from benchmarker.agent.batch.slot import case_slot
from benchmarker.errors import ProviderError
from benchmarker.log.json_limits import load_json
from benchmarker.log.jsonl import JsonlWriter, end_whole_last_line

log = logging.getLogger(__name__)


class BatchFailed(ProviderError):
    """A batched call came back with an error, or its batch failed or took longer than `max_wait_s`."""


class BatchStillRunning(BatchFailed):
    """The batch outlived `max_wait_s`: it may still answer, so its id stays for the next run."""


def custom_id(request: dict[str, Any], length: int) -> str:
    """A stable id of the request's content (model, messages, max_tokens, temperature)."""
    text = json.dumps(request, sort_keys=True, ensure_ascii=False)
    return "r" + hashlib.sha256(text.encode()).hexdigest()[: length - 1]


class BatchJournal:
    """`batches.jsonl` (submitted batches) and `batch_results.jsonl` (answers fetched) in the run dir."""

    def __init__(self, run_dir: Path):
        self.batches_path = Path(run_dir) / "batches.jsonl"
        self.results_path = Path(run_dir) / "batch_results.jsonl"

    def _read(self, path: Path) -> list[tuple[int, dict[str, Any]]]:
        """Every good line, with its number: a damaged one (a kill mid-write, an edit) is named in a warning
        and skipped, never a reason to forget the rest (which would send every request again, and pay for it)."""
        if not path.exists():
            return []
        rows = []
        for number, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                row = load_json(raw)
            except ValueError:
                log.warning("%s:%d: not valid JSON; skipped (the other lines are kept)", path, number)
                continue
            if isinstance(row, dict):
                rows.append((number, row))
            else:
                log.warning("%s:%d: a JSON %s, not an object; skipped (the other lines are kept)", path, number,
                            type(row).__name__)
        return rows

    def _append(self, path: Path, row: dict[str, Any]) -> None:
        """One fsynced line through the run's masking writer (a batch id must survive a kill)."""
        end_whole_last_line(path)
        writer = JsonlWriter(path, durable=True)
        try:
            writer.write(row)
        finally:
            writer.close()

    def submitted(self) -> dict[str, dict[str, Any]]:
        """batch id -> its row (provider, role, model, custom_ids, submitted_at); a row whose custom_ids
        is not a list of ids is named and skipped (its requests cannot be told apart)."""
        batches: dict[str, dict[str, Any]] = {}
        for number, row in self._read(self.batches_path):
            if not isinstance(row.get("batch_id"), str):
                log.warning("%s:%d: no batch_id; skipped", self.batches_path, number)
                continue
            ids = row.get("custom_ids", [])
            if not isinstance(ids, list) or not all(isinstance(c, str) for c in ids):
                log.warning("%s:%d: custom_ids is not a list of request ids; skipped", self.batches_path, number)
                continue
            batches.setdefault(row["batch_id"], {}).update(row)
        return batches

    def answers(self) -> dict[str, BatchReply]:
        """custom id -> its answer; the first good one journaled, as the live run used it. A line of the
        wrong shape, or a second answer for one request, is named and skipped."""
        found: dict[str, BatchReply] = {}
        for number, row in self._read(self.results_path):
            reply = _journaled_reply(row)
            if reply is None:
                log.warning("%s:%d: not an answer (custom_id, text, usage, error of the wrong type); skipped",
                            self.results_path, number)
            elif reply.custom_id in found:
                log.warning("%s:%d: a second answer for %s; the first is kept", self.results_path, number,
                            reply.custom_id)
            else:
                found[reply.custom_id] = reply
        return found

    def add_batch(self, row: dict[str, Any]) -> None:
        self._append(self.batches_path, row)

    def end_batch(self, batch_id: str, state: str) -> None:
        """The batch ended: its unanswered requests are sent again by the next run, not waited on."""
        self._append(self.batches_path, {"batch_id": batch_id, "ended": state})

    def add_answers(self, replies: list[BatchReply]) -> None:
        for reply in replies:
            self._append(self.results_path, reply.as_dict())




def _journaled_reply(row: dict[str, Any]) -> BatchReply | None:
    """A batch_results.jsonl row as the reply it recorded; None when a field has the wrong type (a reply
    with a text that is no text would fail the question that reads it, far from the line to blame)."""
    cid, text, error, usage = row.get("custom_id"), row.get("text", ""), row.get("error", ""), row.get("usage") or {}
    if not (isinstance(cid, str) and isinstance(text, str) and isinstance(error, str) and isinstance(usage, dict)):
        return None
    if not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in usage.items()):
        return None
    return BatchReply(cid, text, usage, error)


class BatchHub:
    """One per run: the pending calls per model, the batches in flight, the answers known."""

    def __init__(self, api: BatchAPI, run_dir: Path, *, poll_s: float, max_wait_s: float, max_requests: int,
                 collect_s: float, clock: Callable[[], float] = time.monotonic):
        self.api = api
        self.journal = BatchJournal(run_dir)
        self.poll_s, self.max_wait_s, self.max_requests, self.collect_s = poll_s, max_wait_s, max_requests, collect_s
        self.progress: Any | None = None   # RunProgress of the current sweep point (the runner sets it)
        self._clock = clock
        self._loaded = False
        self._answers: dict[str, BatchReply] = {}
        self._in_batch: dict[str, str] = {}                        # custom id -> batch id (submitted, unanswered)
        self._futures: dict[str, asyncio.Future[BatchReply]] = {}  # custom id -> its answer, for every waiter
        self._pending: dict[str, list[BatchRequest]] = {}           # model -> requests not yet submitted
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._pollers: dict[str, asyncio.Task[None]] = {}
        self._roles: dict[str, str] = {}
        self.submitted_batches: list[str] = []   # batch ids this process submitted (tests, the manifest)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        self._answers = self.journal.answers()
        for batch_id, row in self.journal.submitted().items():
            if row.get("ended"):
                continue
            for cid in row.get("custom_ids") or []:
                if cid not in self._answers:
                    self._in_batch[cid] = batch_id

    async def call(self, request: BatchRequest, role: str) -> BatchReply:
        """The answer to one request: known, in a submitted batch, or sent in the next batch."""
        self._load()
        cid = request.custom_id
        if cid in self._answers:
            return self._answers[cid]
        future = self._futures.get(cid)
        if future is None:
            future = self._futures[cid] = asyncio.get_running_loop().create_future()
            if cid in self._in_batch:
                self._watch(self._in_batch[cid])
            else:
                self._roles[cid] = role
                self._enqueue(request)
        slot = case_slot.get()
        if slot is not None:
            slot.release()   # let another case run while this one waits for the batch
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            slot = None   # a cancelled case is leaving: it does not queue for its place again
            raise
        finally:
            if slot is not None:
                await slot.acquire()

    def _enqueue(self, request: BatchRequest) -> None:
        queue = self._pending.setdefault(request.model, [])
        queue.append(request)
        if len(queue) >= self.max_requests:
            self._flush(request.model)
        elif request.model not in self._timers:
            self._timers[request.model] = asyncio.create_task(self._flush_later(request.model))

    async def _flush_later(self, model: str) -> None:
        await asyncio.sleep(self.collect_s)
        self._timers.pop(model, None)
        self._flush(model)

    def _flush(self, model: str) -> None:
        timer = self._timers.pop(model, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        requests = self._pending.pop(model, [])
        if requests:
            task = asyncio.create_task(self._submit(requests))
            self._pollers[f"submit:{requests[0].custom_id}"] = task

    async def _submit(self, requests: list[BatchRequest]) -> None:
        try:
            batch_id = await self.api.submit(requests)
        except Exception as err:  # nothing was submitted (or we cannot know): every waiter fails, a rerun retries
            self._fail([r.custom_id for r in requests], f"batch submission failed: {type(err).__name__}: {err}")
            return
        ids = [r.custom_id for r in requests]
        self.journal.add_batch({"batch_id": batch_id, "provider": self.api.name, "model": requests[0].model,
                                "roles": sorted({self._roles.get(c, "") for c in ids}), "custom_ids": ids,
                                "submitted_at": time.time()})
        self.submitted_batches.append(batch_id)
        for cid in ids:
            self._in_batch[cid] = batch_id
        self._note(f"batch {batch_id}: {len(ids)} requests submitted ({self.api.name})")
        self._watch(batch_id)

    def _watch(self, batch_id: str) -> None:
        if batch_id not in self._pollers:
            self._pollers[batch_id] = asyncio.create_task(self._poll(batch_id))

    async def _poll(self, batch_id: str) -> None:
        started = self._clock()
        last = ""
        try:
            while True:
                status = await self.api.status(batch_id)
                line = f"batch {batch_id}: {status.state} {status.done}/{status.total}"
                if line != last:
                    self._note(line)
                    last = line
                if status.ended:
                    break
                if self._clock() - started >= self.max_wait_s:
                    raise BatchStillRunning(f"batch {batch_id} not finished after {self.max_wait_s:g} s ([batch] max_wait_s); "
                                      "its id is kept in batches.jsonl: run again to pick it up")
                await asyncio.sleep(self.poll_s)
            try:
                replies = await self.api.results(batch_id)
            except Exception:
                if not status.failed:
                    raise
                replies = []   # a failed batch may have no results to read (Bedrock writes none)
        except Exception as err:
            ids = [c for c, b in self._in_batch.items() if b == batch_id]
            self._fail(ids, str(err))
            if not isinstance(err, BatchStillRunning):   # it will not answer: the next call sends its request again
                self.journal.end_batch(batch_id, f"error: {err}"[:300])
                for cid in ids:
                    self._in_batch.pop(cid, None)
            self._pollers.pop(batch_id, None)
            return
        replies = self._sent_once(batch_id, replies)
        answered = [r for r in replies if not r.error]   # an errored request is sent again by the next call
        self.journal.add_answers(answered)
        self.journal.end_batch(batch_id, status.failed or status.state)
        for reply in replies:
            self._in_batch.pop(reply.custom_id, None)
            if reply.error:
                self._fail([reply.custom_id], f"batch {batch_id}: request {reply.custom_id} failed: {reply.error[:500]}")
                continue
            self._answers[reply.custom_id] = reply
            future = self._futures.pop(reply.custom_id, None)
            if future is not None and not future.done():
                future.set_result(reply)
        missing = [c for c, b in self._in_batch.items() if b == batch_id]
        why = status.failed or "no answer in the batch's results"
        self._fail(missing, f"batch {batch_id} ended ({status.state}) without an answer for this request: {why}")
        for cid in missing:
            self._in_batch.pop(cid, None)
        self._pollers.pop(batch_id, None)

    def _sent_once(self, batch_id: str, replies: list[BatchReply]) -> list[BatchReply]:
        """The replies to requests this batch was sent, one each: the first good answer, else the first
        error. A result for an id never sent, or a further result for one, is named in a warning and
        dropped (journal and live run agree: only good answers are journaled, the first one kept)."""
        sent = {c for c, b in self._in_batch.items() if b == batch_id}
        kept: dict[str, BatchReply] = {}
        for reply in replies:
            if reply.custom_id not in sent:
                log.warning("batch %s: a result for %s, a request it was not sent; ignored", batch_id, reply.custom_id)
                continue
            first = kept.get(reply.custom_id)
            if first is None:
                kept[reply.custom_id] = reply
                continue
            if first.error and not reply.error:
                kept[reply.custom_id] = reply
            log.warning("batch %s: a second result for %s; the first %s is kept", batch_id, reply.custom_id,
                        "error" if kept[reply.custom_id] is first and first.error else "answer")
        return list(kept.values())

    def _fail(self, ids: list[str], why: str) -> None:
        for cid in ids:
            future = self._futures.pop(cid, None)
            if future is not None and not future.done():
                future.set_exception(BatchFailed(why))

    def _note(self, message: str) -> None:
        log.info(message)
        if self.progress is not None:
            self.progress.set_phase("batch")
            self.progress.note(message)

    async def aclose(self) -> None:
        """Stop polling (the batches go on at the provider; a rerun picks them up)."""
        for task in [*self._timers.values(), *self._pollers.values()]:
            task.cancel()
        self._timers.clear()
        self._pollers.clear()
