"""Gather calls into batches, make each submitted batch durable, wait for it, hand each answer back.

A call waits in `pending` until `max_requests` calls wait or `collect_s` passed since the first one;
then one batch takes them (one model per batch). Its id goes to `batches.jsonl` (fsynced) before
anyone waits on it; every answer fetched goes to `batch_results.jsonl`. A restarted run reads both:
a call whose answer is there gets it at once, a call in a submitted batch waits on that batch, and
only a call never submitted goes into a new batch. A custom id is a hash of the whole request, so the
same question asked again is the same request.

A journal that may have lost a submitted batch's row (a row torn by a kill during its write, an emptied
file, `custom_ids` that is no list) must not make the run pay for that batch again. Each batch is tagged
with the run (`mlme_run`, the run directory's name) where the provider keeps metadata (OpenAI): before
such a run sends anything, it lists the provider's batches of this run and waits on the ones its journal
lost instead. Where batches carry no metadata (Anthropic, Bedrock) the hub refuses to start, in one line
naming the journal's line and how to go on.

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

from benchmarker.agent.batch.journal import BatchJournal, BatchJournalDamaged, refusal
from benchmarker.agent.batch.protocol import BatchAPI, BatchReply, BatchRequest, FoundBatch
from benchmarker.agent.batch.slot import case_slot
from benchmarker.agent.batch.wire import RequestContent
from benchmarker.errors import ProviderError

log = logging.getLogger(__name__)


class BatchFailed(ProviderError):
    """A batched call came back with an error, or its batch failed or took longer than `max_wait_s`."""


class BatchStillRunning(BatchFailed):
    """The batch outlived `max_wait_s`: it may still answer, so its id stays for the next run."""


def run_tag(name: str) -> str:
    """The run as a metadata value (OpenAI: at most 512 characters)."""
    return name if len(name) <= 200 else f"{name[:180]}-{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def custom_id(request: RequestContent, length: int) -> str:
    """A stable id of the request's content (model, messages, max_tokens, temperature)."""
    text = json.dumps(request, sort_keys=True, ensure_ascii=False)
    return "r" + hashlib.sha256(text.encode()).hexdigest()[: length - 1]


def _ids_hash(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:16]


class BatchHub:
    """One per run: the pending calls per model, the batches in flight, the answers known.

    Raises BatchJournalDamaged when the journal may have lost a batch and the provider cannot be searched."""

    def __init__(self, api: BatchAPI, run_dir: Path, *, poll_s: float, max_wait_s: float, max_requests: int,
                 collect_s: float, clock: Callable[[], float] = time.monotonic):
        self.api = api
        self.journal = BatchJournal(run_dir)
        self.tags = {"mlme_run": run_tag(Path(run_dir).name)}
        self._damage = self.journal.damage()
        if self._damage and not api.searchable:
            raise BatchJournalDamaged(refusal(self._damage, api.name))
        self._search: asyncio.Task[None] | None = None   # the one look-up of this run's batches at the provider
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
        if self._damage:
            try:
                await self._find_lost_batches()
            except Exception as err:  # nothing sent: a rerun looks again
                self._fail([r.custom_id for r in requests], f"{self._damage[0]}: looking this run's batches up at "
                           f"{self.api.name} failed, so nothing was sent: {type(err).__name__}: {err}")
                return
            for batch_id in {self._in_batch[r.custom_id] for r in requests if r.custom_id in self._in_batch}:
                self._watch(batch_id)
            requests = [r for r in requests if r.custom_id not in self._in_batch]
            if not requests:
                return
        ids = [r.custom_id for r in requests]
        tags = {**self.tags, "mlme_requests": f"{len(ids)}:{_ids_hash(ids)}"}
        try:
            batch_id = await self.api.submit(requests, tags)
        except Exception as err:  # nothing was submitted (or we cannot know): every waiter fails, a rerun retries
            self._fail(ids, f"batch submission failed: {type(err).__name__}: {err}")
            return
        self.journal.add_batch({"batch_id": batch_id, "provider": self.api.name, "model": requests[0].model,
                                "roles": sorted({self._roles.get(c, "") for c in ids}), "custom_ids": ids,
                                "submitted_at": time.time()})
        self.submitted_batches.append(batch_id)
        for cid in ids:
            self._in_batch[cid] = batch_id
        self._note(f"batch {batch_id}: {len(ids)} requests submitted ({self.api.name})")
        self._watch(batch_id)

    async def _find_lost_batches(self) -> None:
        """Once per process: wait on every batch of this run the provider has and the journal lost."""
        if self._search is None:
            self._search = asyncio.create_task(self._look_up())
        try:
            await asyncio.shield(self._search)
        except Exception:
            self._search = None   # the next batch looks again
            raise

    async def _look_up(self) -> None:
        self._adopt(await self.api.find(self.tags))

    def _adopt(self, found: list[FoundBatch]) -> None:
        log.warning("%s: may have lost a batch's record; %d batches of run %r found at %s by their metadata",
                    self._damage[0], len(found), self.tags["mlme_run"], self.api.name)
        known = self.journal.submitted()
        for batch in found:
            waiting = [c for c in batch.custom_ids if c not in self._answers and c not in self._in_batch]
            if batch.batch_id in known or not waiting:
                continue
            self.journal.add_batch({"batch_id": batch.batch_id, "provider": self.api.name, "model": batch.model,
                                    "roles": [], "custom_ids": list(batch.custom_ids),
                                    "submitted_at": batch.created_at, "found_by": "metadata"})
            for cid in waiting:
                self._in_batch[cid] = batch.batch_id
            self._note(f"batch {batch.batch_id}: found at {self.api.name} by its metadata ({batch.state}); "
                       f"its {len(waiting)} requests are waited on, not sent again")

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
