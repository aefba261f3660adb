"""What a verb that reads a finished run directory (`score`, `replay`, `judge-online`) demands of
its files: whole JSONL records and a manifest that is a JSON object. Damage is a one-line
UserError naming the file (and line) and what to do, never a traceback and never a record dropped
without a word (a run resuming skips a cut-off last line and redoes that work; these verbs cannot)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.log.jsonl import torn_tail
from benchmarker.log.lines import Manifest

if TYPE_CHECKING:
    from benchmarker.log.records import AnswerRecord


def require_whole(path: Path, verb: str) -> None:
    """Raise when `path`'s last line was cut off mid-write (a run stopped and not resumed). For
    answers.jsonl and memories.jsonl: such a line is a record the verb would otherwise drop (a
    cut-off last line of decisions.jsonl is not: it belongs to a case that never finished)."""
    number = torn_tail(path)
    if number is not None:
        raise UserError(f"{path}:{number}: the last line is cut off (the run stopped mid-write); resume the run "
                        f"(mycelian-longmemeval run ITS_CONFIG), which redoes that work, then {verb} again")


def read_manifest(run_dir: Path, verb: str) -> tuple[Manifest, bytes]:
    """manifest.json as an object and its bytes; UserError when it is missing, empty or not a JSON object."""
    path = Path(run_dir) / "manifest.json"
    if not path.is_file():
        raise UserError(f"{run_dir}: no manifest.json; is it a run directory (runs/<run_id>)? {verb} needs "
                        "the manifest a run writes")
    raw = path.read_bytes()
    try:
        manifest = load_json(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid JSON ({exc}); the run's manifest is damaged") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{path}: expected a JSON object, got {type(manifest).__name__}; the run's manifest is "
                        "damaged")
    return cast(Manifest, manifest), raw  # an object as a run writes it: its keys are read with .get()


def config_of_run(run_dir: Path, config_path: Path | None, verb: str) -> Any:
    """CONFIG when given (another reader or judge), else the config the run was made with (its manifest)."""
    from pydantic import ValidationError

    from benchmarker.config import load_config
    from benchmarker.config_schema import RunConfig

    if config_path is not None:
        return load_config(config_path)
    manifest, _ = read_manifest(run_dir, verb)
    try:
        return RunConfig.model_validate((manifest.get("config") or {}).get("config") or {})
    except ValidationError as exc:
        raise UserError(f"{run_dir / 'manifest.json'}: the config it records no longer validates "
                        f"({exc.errors()[0]['msg']}); pass the config: {verb} RUN_DIR CONFIG") from None


def answered_questions(run_dir: Path, verb: str) -> dict[str, AnswerRecord]:
    """The run's answers lines (the dataset's own questions, not adversarial rounds) by question id; a verb that
    re-asks them (`oracle`, `baselines`) has nothing to do without them."""
    from benchmarker.log.records import AnswerRecord, read_records

    path = run_dir / "answers.jsonl"
    require_whole(path, verb)
    answers = {a.question_id: a for a in read_records(path, AnswerRecord) if not a.get("round")}
    if not answers:
        raise UserError(f"{run_dir}: no answers.jsonl lines; {verb} re-asks the questions of a run that answered them")
    return answers

