"""Ingestion against its floor (issue 45): retrieval-mode runs before and after the batched write path.

    python bench/bench_ingest.py [--locomo locomo10.json] [--quick] [--skip-s] [--s-questions 500]
                                 [--before-questions 25] [--minilm-messages 1000] [--device auto]

Rows (printed as markdown, written to runs/bench/ingest.json):
- locomo before / after: `mycelian-longmemeval run` (retrieval, phases = ["ingest"], concurrency 2,
  static embedder) on --locomo, else a generated 10 x 600-turn file (bench/locomo_synth.py), with
  `[memory] write_batch = 0` (one add_entry MCP call per message) and with the default batch.
- s after: a generated LongMemEval_S-size file (bench/longmemeval_synth.py, 500 x 550), every phase
  (one search per question, no model), default write_batch; s before: the same on its first
  --before-questions questions only (the one-call-per-message path would take ~20 min on all).
- minilm: texts/s of the minilm embedder on --minilm-messages texts of the S file, in this process,
  on `[memory] device` --device: embedding-bound on CPU.
Each harness row has the floor (bench/ingest_floor.py on the same file) beside it.

Rates: messages is the entries the run stored (memories.jsonl). For ingest-only rows the ingestion
time is the summary's run.wall_s (the graph's wall, start-up excluded); for the S rows, which also
search, it is the sum of memories.jsonl ingest_s over the cases divided by the concurrency (the
cases ingest two at a time). process_wall_s (the subprocess, start-up included) is reported beside
it. x_floor = floor messages/s / run messages/s: how many times slower than the floor the run ingests.
Before the batched path exists (`write_batch` not yet a [memory] key) the after rows are skipped with
a note and the before rows run without the key: the one path there is.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ingest_floor import iter_cases, measure_floor, percentile  # noqa: E402
from proc_rss import run_watched  # noqa: E402

OUT = Path("runs/bench/ingest.json")
COLUMNS = ("row", "variant", "data", "write_batch", "questions", "messages", "messages_per_s", "rate_basis",
           "run_wall_s", "process_wall_s", "floor_messages_per_s", "x_floor", "search_p50_ms", "search_p95_ms",
           "floor_search_p50_ms", "floor_search_p95_ms", "harness_peak_rss_mb", "service_peak_rss_mb", "note")


class Sizes(NamedTuple):
    conversations: int     # of the generated LoCoMo file
    turns: int
    locomo_questions: int  # per conversation
    s_messages: int        # per question of the generated S file
    chars: int | None      # mean characters per S message; None = measured in the real S file


FULL = Sizes(10, 600, 200, 550, None)
QUICK = Sizes(2, 60, 3, 33, 300)


def write_batch_known() -> bool:
    """Whether `[memory] write_batch` is a key yet (the batched path landed)."""
    from benchmarker.config_schema import MemoryConfig

    return "write_batch" in MemoryConfig.model_fields


def config_text(data: Path, kind: str, phases: list[str], write_batch: int | None, limit: int) -> str:
    memory = f"write_batch = {write_batch}\n" if write_batch is not None else ""
    return (f'[dataset]\nkind = "{kind}"\nfile = "{data}"\n[memory]\nembedder = "static"\n{memory}'
            f'[run]\nmode = "retrieval"\nphases = {json.dumps(phases)}\nconcurrency = 2\nlimit = {limit}\n'
            'output_dir = "runs"\nprogress = false\n')


def harness_run(tmp: Path, name: str, data: Path, kind: str, *, phases: list[str], write_batch: int | None,
                limit: int = 0) -> dict[str, Any]:
    """One retrieval run in a subprocess; its ingestion and search figures read back from the run directory."""
    work = tmp / name
    work.mkdir()
    config = work / f"{name}.toml"
    config.write_text(config_text(data, kind, phases, write_batch, limit), encoding="utf-8")
    wall, peak_harness, peak_service = run_watched(config, cwd=work)
    (run_dir,) = (work / "runs").iterdir()
    cases: dict[str, dict[str, Any]] = {}
    for line in (run_dir / "memories.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("ingested"):
            cases[record["case_id"]] = record   # the last ingested line of a case wins
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    searches: list[float] = []
    with open(run_dir / "decisions.jsonl", encoding="utf-8") as stream:
        for line in stream:   # ~275,000 add_entry lines on the S row: parse only the searches
            if '"search_memories"' in line:
                record = json.loads(line)
                if record.get("tool") == "search_memories" and record.get("latency_ms") is not None:
                    searches.append(float(record["latency_ms"]))
    ingest_only = phases == ["ingest"]
    ingest_s = summary["run"]["wall_s"] if ingest_only else sum(c["ingest_s"] for c in cases.values()) / 2
    messages = sum(int(c["entries"]) for c in cases.values())
    return {"write_batch": write_batch, "questions": summary["counts"]["questions"], "messages": messages,
            "messages_per_s": round(messages / ingest_s, 1) if ingest_s else None,
            "rate_basis": "summary run.wall_s" if ingest_only else "sum(memories ingest_s) / concurrency 2",
            "run_wall_s": summary["run"]["wall_s"], "process_wall_s": round(wall, 2),
            "search_p50_ms": round(percentile(searches, 50), 3) if searches else None,
            "search_p95_ms": round(percentile(searches, 95), 3) if searches else None,
            "harness_peak_rss_mb": round(peak_harness / 1024, 1), "service_peak_rss_mb": round(peak_service / 1024, 1)}


def row(name: str, variant: str, data: str, figures: dict[str, Any] | None, floor: dict[str, Any],
        note: str = "") -> dict[str, Any]:
    """A table row with every column; the floor's figures beside the run's and the ratio between them."""
    out: dict[str, Any] = dict.fromkeys(COLUMNS)
    out.update(row=name, variant=variant, data=data, note=note, floor_messages_per_s=floor["messages_per_s"],
               floor_search_p50_ms=floor["search_p50_ms"], floor_search_p95_ms=floor["search_p95_ms"])
    if figures:
        out.update(figures)
        if figures.get("messages_per_s"):
            out["x_floor"] = round(floor["messages_per_s"] / figures["messages_per_s"], 2)
    return out


def pair(tmp: Path, name: str, data: Path, data_label: str, kind: str, floor: dict[str, Any], *,
         phases: list[str], before_limit: int, after: bool) -> list[dict[str, Any]]:
    """The after row (default write_batch) and the before row (write_batch = 0), or its skip note."""
    known = write_batch_known()
    rows = []
    if not after:
        rows.append(row(name, "after", data_label, None, floor, "skipped (--skip-s)"))
    elif known:
        rows.append(row(name, "after", data_label, harness_run(tmp, f"{name}-after", data, kind, phases=phases,
                                                                  write_batch=None), floor))
    else:
        rows.append(row(name, "after", data_label, None, floor,
                        "skipped: [memory] write_batch is not a key yet (the batched write path is not in)"))
    label = data_label + (f", first {before_limit} questions" if before_limit else "")
    rows.append(row(name, "before", label, harness_run(tmp, f"{name}-before", data, kind, phases=phases,
                                                        write_batch=0 if known else None, limit=before_limit),
                    floor, "" if known else "no write_batch key: the one path there is (one add_entry per message)"))
    return rows


def minilm_row(data: Path, messages: int, device: str) -> dict[str, Any]:
    """Texts/s of minilm over the first `messages` texts of `data`, in batches of 32; a note when it cannot load."""
    from benchmarker.memory.entries import entry_text
    from embedded_memory.embedders import EmbedderError, create_embedder

    out: dict[str, Any] = {"row": "minilm", "device_setting": device, "device": None, "messages": 0,
                           "load_s": None, "embed_s": None, "texts_per_s": None, "note": ""}
    if messages <= 0:
        out["note"] = "skipped (--minilm-messages 0)"
        return out
    texts: list[str] = []
    for case in iter_cases(data, "longmemeval"):
        texts += [entry_text(s, m)[0] for s in case.sessions for m in s.messages]
        if len(texts) >= messages:
            break
    texts = texts[:messages]
    started = time.perf_counter()
    try:
        embedder = create_embedder("minilm", 32, device)
    except (EmbedderError, ImportError, OSError) as err:
        out["note"] = f"skipped: minilm cannot load ({err})"
        return out
    assert embedder is not None
    out["load_s"] = round(time.perf_counter() - started, 2)
    started = time.perf_counter()
    for i in range(0, len(texts), 32):
        embedder.embed(texts[i:i + 32])
    elapsed = time.perf_counter() - started
    out.update(device=getattr(embedder, "device", device), messages=len(texts), embed_s=round(elapsed, 2),
               texts_per_s=round(len(texts) / elapsed, 1) if elapsed else None)
    out["note"] = "embedding-bound on CPU" if out["device"] == "cpu" else f"on {out['device']}"
    embedder.close()
    return out


def cell(value: Any) -> str:
    if value is None or value == "":
        return "-"
    return f"{value:,}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def markdown(report: dict[str, Any]) -> str:
    shown = [c for c in COLUMNS if c != "rate_basis"]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    lines += ["| " + " | ".join(cell(r[c]) for c in shown) + " |" for r in report["rows"]]
    minilm = report["minilm"]
    lines += ["", "| minilm | device | messages | texts/s | load s | note |", "|---|---|---|---|---|---|",
              f"| {minilm['device_setting']} | {cell(minilm['device'])} | {cell(minilm['messages'])} | "
              f"{cell(minilm['texts_per_s'])} | {cell(minilm['load_s'])} | {minilm['note']} |"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, help="a LoCoMo file (the real locomo10.json); default: generated")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (the smoke test)")
    parser.add_argument("--skip-s", action="store_true", help="skip the S-size after row (the before slice runs)")
    parser.add_argument("--s-questions", type=int, default=500)
    parser.add_argument("--before-questions", type=int, default=25)
    parser.add_argument("--minilm-messages", type=int, default=1000)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="[memory] device for minilm")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL
    s_questions, before, minilm = ((3, 2, min(args.minilm_messages, 16)) if args.quick else
                                   (args.s_questions, args.before_questions, args.minilm_messages))
    from longmemeval_synth import write as write_s

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.locomo:
            locomo, locomo_label = args.locomo.resolve(), f"file {args.locomo.name}"
        else:
            from locomo_synth import generate

            locomo = tmp / "locomo_synth.json"
            locomo.write_text(json.dumps(generate(size.conversations, size.turns, size.locomo_questions, 1)),
                              encoding="utf-8")
            locomo_label = f"generated {size.conversations} x {size.turns} turns"
        floors = {"locomo": measure_floor(locomo, "locomo")}
        rows = pair(tmp, "locomo", locomo, locomo_label, "locomo", floors["locomo"], phases=["ingest"],
                    before_limit=0, after=True)
        s_file = tmp / "longmemeval_synth.json"
        written = write_s(s_file, s_questions, size.s_messages, 1, size.chars)
        floors["s"] = measure_floor(s_file, "longmemeval")
        rows += pair(tmp, "s", s_file, f"generated {s_questions} x {size.s_messages} messages", "longmemeval",
                     floors["s"], phases=["ingest", "qa", "eval"], before_limit=min(before, s_questions),
                     after=not args.skip_s)
        minilm_figures = minilm_row(s_file, minilm, args.device)
    report = {"quick": args.quick, "write_batch_known": write_batch_known(), "rows": rows, "floors": floors,
              "s_file": written, "minilm": minilm_figures, "bench_wall_s": round(time.perf_counter() - started, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(markdown(report))
    print(f"\nwritten to {args.out} ({report['bench_wall_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
