"""The run directory's batch journals: `batches.jsonl` (each submitted batch: its id, provider, model and
request ids, then when it ended) and `batch_results.jsonl` (every answer fetched), read line by line so a
damaged line costs only itself, and where a damaged line may have been a submitted batch's only record."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

from benchmarker.agent.batch.protocol import BatchReply, ReplyRow
from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.log.jsonl import JsonlWriter, end_whole_last_line
from benchmarker.log.lines import Json

log = logging.getLogger(__name__)


class BatchJournalDamaged(UserError):
    """batches.jsonl may have lost a submitted batch's row and the provider cannot be searched for it."""


class BatchRow(TypedDict):
    """A batches.jsonl row written when a batch is submitted (or found at the provider by its metadata)."""

    batch_id: str
    provider: str
    model: str
    roles: list[str]
    custom_ids: list[str]
    submitted_at: float
    found_by: NotRequired[str]


class EndedRow(TypedDict):
    """A batches.jsonl row written when a batch ended: its unanswered requests are sent again."""

    batch_id: str
    ended: str


class JournaledBatch(TypedDict, total=False):
    """A batch as read back: its rows merged (a damaged file may lack any key but batch_id and custom_ids)."""

    batch_id: str
    provider: str
    model: str
    roles: list[str]
    custom_ids: list[str]
    submitted_at: float
    found_by: str
    ended: str


_BATCH_ID = re.compile(rb'"batch_id"\s*:\s*"([^"\\]+)"')


class BatchJournal:
    """`batches.jsonl` (submitted batches) and `batch_results.jsonl` (answers fetched) in the run dir."""

    def __init__(self, run_dir: Path):
        self.batches_path = Path(run_dir) / "batches.jsonl"
        self.results_path = Path(run_dir) / "batch_results.jsonl"

    def _read(self, path: Path) -> list[tuple[int, dict[str, Json]]]:
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

    def _append(self, path: Path, row: BatchRow | EndedRow | ReplyRow) -> None:
        """One fsynced line through the run's masking writer (a batch id must survive a kill)."""
        end_whole_last_line(path)
        writer = JsonlWriter(path, durable=True)
        try:
            writer.write(dict(row))
        finally:
            writer.close()

    def submitted(self) -> dict[str, JournaledBatch]:
        """batch id -> its row (provider, role, model, custom_ids, submitted_at); a row whose custom_ids
        is not a list of ids is named and skipped (its requests cannot be told apart)."""
        batches: dict[str, JournaledBatch] = {}
        for number, row in self._read(self.batches_path):
            batch_id = row.get("batch_id")
            if not isinstance(batch_id, str):
                log.warning("%s:%d: no batch_id; skipped", self.batches_path, number)
                continue
            if not _id_list(row.get("custom_ids", [])):
                log.warning("%s:%d: custom_ids is not a list of request ids; skipped", self.batches_path, number)
                continue
            # checked above: batch_id and custom_ids; the other keys are read with .get() where they are used
            batches.setdefault(batch_id, {}).update(cast(JournaledBatch, row))
        return batches

    def damage(self) -> list[str]:
        """Where batches.jsonl may have lost the row of a submitted batch: a line that is no batch row (torn,
        edited) or whose custom_ids is no list, unless it names a batch another good row records (a torn
        `ended` row); an empty file (a kill between its creation and its first row). [] when nothing is lost."""
        path = self.batches_path
        if not path.exists():
            return []
        raw = path.read_bytes()
        if not raw.strip():
            return [f"{path} is empty"]
        known: set[str] = set()
        suspects: list[tuple[int, str, bytes]] = []
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                row = load_json(line)
            except ValueError:
                suspects.append((number, "not valid JSON", line))
                continue
            if not isinstance(row, dict) or not isinstance(row.get("batch_id"), str):
                suspects.append((number, "not a batch row", line))
            elif not _id_list(row.get("custom_ids", [])):
                suspects.append((number, "custom_ids is not a list of request ids", line))
            elif "custom_ids" in row:
                known.add(row["batch_id"])
        return [f"{path}:{n} ({why})" for n, why, line in suspects
                if (m := _BATCH_ID.search(line)) is None or m.group(1).decode(errors="replace") not in known]

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

    def add_batch(self, row: BatchRow) -> None:
        self._append(self.batches_path, row)

    def end_batch(self, batch_id: str, state: str) -> None:
        """The batch ended: its unanswered requests are sent again by the next run, not waited on."""
        self._append(self.batches_path, {"batch_id": batch_id, "ended": state})

    def add_answers(self, replies: list[BatchReply]) -> None:
        for reply in replies:
            self._append(self.results_path, reply.as_dict())




def _id_list(ids: Any) -> bool:
    return isinstance(ids, list) and all(isinstance(c, str) for c in ids)


def refusal(damage: list[str], provider: str) -> str:
    """One line: where the journal may have lost a batch, why the run stops, how to go on."""
    more = f" (and {len(damage) - 1} more)" if len(damage) > 1 else ""
    return (f"{damage[0]}{more} may have held the record of a batch already submitted (and paid for), and "
            f"{provider}'s batches cannot be looked up by run, so nothing is sent again: put the batch's row "
            f"back (its id is in {provider}'s console) or, to send its requests again, delete the damaged line "
            "(an empty journal: the file), then run the same command again")


def _journaled_reply(row: dict[str, Json]) -> BatchReply | None:
    """A batch_results.jsonl row as the reply it recorded; None when a field has the wrong type (a reply
    with a text that is no text would fail the question that reads it, far from the line to blame)."""
    cid, text, error, usage = row.get("custom_id"), row.get("text", ""), row.get("error", ""), row.get("usage") or {}
    if not (isinstance(cid, str) and isinstance(text, str) and isinstance(error, str) and isinstance(usage, dict)):
        return None
    counts = {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
    return BatchReply(cid, text, counts, error) if len(counts) == len(usage) else None
