"""LongMemEval's own evaluator, both ways: its judge prompts in, its file formats out.

In: `load_official_prompt_builder(repo)` takes `get_anscheck_prompt` from the user's clone
(`<repo>/src/evaluation/evaluate_qa.py`). That file imports openai, backoff, tqdm at module
level; rather than importing it (and needing those packages), the function's source is cut
out with `ast` and executed alone. It needs nothing but str.format.

Out: `write_official_outputs(run_dir, results)` writes `<run_dir>/official/`:

    hypotheses.jsonl                      {"question_id", "hypothesis"} per question (the
                                          evaluator's input)
    hypotheses.jsonl.eval-results-<model> the hypothesis lines plus "autoeval_label":
                                          {"model", "label"}; judged questions of the six
                                          LongMemEval types only (an unjudged one would count
                                          as wrong there; other types crash the script)
    references.json                       [{"question_id","question_type","question","answer"}]
                                          for the six LongMemEval types: a reference file for
                                          datasets that are not the official JSON (the sample set)

To print the official metrics from our judgement (in the LongMemEval clone):

    python src/evaluation/print_qa_metrics.py \\
        RUN_DIR/official/hypotheses.jsonl.eval-results-MODEL  data/longmemeval_s_cleaned.json

(or RUN_DIR/official/references.json as the second argument). print_qa_metrics.py asserts
that the judge model is 'gpt-4o-2024-08-06'; for any other judge run it with `python -O`
(which skips asserts) or delete that line. It only knows the six LongMemEval types. To have
LongMemEval re-judge our answers with its own script instead:

    python src/evaluation/evaluate_qa.py gpt-4o RUN_DIR/official/hypotheses.jsonl data/longmemeval_s_cleaned.json
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarker.log.confined import make_folders
from benchmarker.log.jsonl import write_text_atomic
from benchmarker.log.lines import AutoevalLabel, ResultLine
from benchmarker.scoring.judge import LONGMEMEVAL_TYPES, PromptBuilder

FUNCTION = "get_anscheck_prompt"
EVALUATOR = Path("src") / "evaluation" / "evaluate_qa.py"


def _evaluator_file(repo_path: Path) -> Path:
    repo_path = Path(repo_path).expanduser()
    return repo_path if repo_path.is_file() else repo_path / EVALUATOR


def load_official_prompt_builder(repo_path: str | Path) -> tuple[PromptBuilder | None, str]:
    """(get_anscheck_prompt, "") from a LongMemEval clone, or (None, reason) when unusable."""
    path = _evaluator_file(Path(repo_path))
    if not path.is_file():
        return None, f"{path} not found (dataset_repo_path must be a LongMemEval clone)"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError) as exc:
        return None, f"{path} could not be parsed: {exc}"
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == FUNCTION]
    if not found:
        return None, f"{path} has no function {FUNCTION}()"
    module = ast.Module(body=[found[-1]], type_ignores=[])
    namespace: dict[str, Any] = {}
    try:
        exec(compile(module, str(path), "exec"), namespace)  # only that function's own source
        builder = namespace[FUNCTION]
        probe = builder("single-session-user", "q", "a", "r", abstention=False)
    except Exception as exc:
        return None, f"{path}: {FUNCTION}() does not work on its own ({type(exc).__name__}: {exc})"
    if not isinstance(probe, str):
        return None, f"{path}: {FUNCTION}() did not return a prompt string"
    return builder, ""


def official_model_name(results: Iterable[ResultLine]) -> str:
    """The judge model recorded in the results (the most common), else "deterministic"."""
    counts: dict[str, int] = {}
    for r in results:
        auto = r.get("autoeval_label")
        if auto and auto.get("model"):
            counts[auto["model"]] = counts.get(auto["model"], 0) + 1
    return max(counts, key=lambda m: counts[m]) if counts else "deterministic"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def write_official_outputs(run_dir: str | Path, results: Sequence[ResultLine]) -> dict[str, Path]:
    """Write official/hypotheses.jsonl, its .eval-results-<model> file and references.json."""
    out = Path(run_dir) / "official"
    make_folders(out)   # never through a link below the run directory (log/confined.py)
    model = official_model_name(results)
    paths = {"hypotheses": out / "hypotheses.jsonl",
             "eval_results": out / f"hypotheses.jsonl.eval-results-{_safe(model)}",
             "references": out / "references.json"}
    hyp, evr = [], []
    for r in results:
        line = {"question_id": r["question_id"], "hypothesis": r.get("hypothesis") or ""}
        hyp.append(json.dumps(line, ensure_ascii=False) + "\n")
        if r.get("label") is not None and r.get("question_type") in LONGMEMEVAL_TYPES:
            auto: AutoevalLabel = r.get("autoeval_label") or {"model": model, "label": bool(r["label"])}
            evr.append(json.dumps({**line, "autoeval_label": auto}, ensure_ascii=False) + "\n")
    write_text_atomic(paths["hypotheses"], "".join(hyp))
    write_text_atomic(paths["eval_results"], "".join(evr))
    refs = [{"question_id": r["question_id"], "question_type": r.get("question_type"),
             "question": r.get("question", ""), "answer": r.get("answer", "")}
            for r in results if r.get("question_type") in LONGMEMEVAL_TYPES]
    write_text_atomic(paths["references"], json.dumps(refs, ensure_ascii=False, indent=1))
    return paths
