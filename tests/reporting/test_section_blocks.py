"""The multi-seed and self-improve blocks are report data (section_spec: Table and Lines) that section_render turns
into markdown, byte for byte what their hand-written markdown was (pinned from the code before the change)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.section_render import section_pair
from benchmarker.reporting.section_spec import Lines, Section, Table
from benchmarker.reporting.sections import extra_sections, multi_seed_section, self_improve_summary
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.scoring.multiseed import summarize_seeds

SEEDS = {"by_category": {"B": {"mean": 0.66667, "stdev": 0.57735, "n_seeds": 3, "ci95_low": 0.1, "ci95_high": 1.0},
                         "A": {"mean": 0.5, "stdev": None, "n_seeds": 2, "ci95_low": None, "ci95_high": None}},
         "noisy_questions": [{"question_key": "a#1"}, {"question_key": "c#0"}]}
SEEDS_MD = ("| category | seeds | mean | std | 95% interval |\n|---|---|---|---|---|\n| A | 2 | 0.500 | n/a | n/a |\n"
            "| B | 3 | 0.667 | 0.577 | 0.100-1.000 |\n\n2 question(s) vary by more than 10 points across seeds: a#1, c#0")

START = {"tunables": {"top_k": 1, "alpha": None}, "holdout": {"score": 0.4, "n": 10}, "train": {"score": 0.5}}
BEST = {"tunables": {"top_k": 5, "alpha": 0.6}, "holdout": {"score": 0.7, "n": 10}, "train": {"score": 0.75},
        "dir": "self_improve/candidates/1"}
ITERATIONS = [  # written out of order: the block lists them by iteration
    {"iteration": 2, "decision": "reverted", "stage": "re_eval", "reason": "held-out | drop in multi-session",
     "start": START, "best": BEST, "base": BEST, "candidate": {"holdout": {"score": 0.65}, "train": {"score": 0.8}},
     "proposal": {"kind": "prompt", "files": ["qa_reader.txt"], "diff": "--- a\n+++ b\n-old line\n+new line\n+another\n"},
     "votes": [{"approve": True}, {"approve": False}], "stats": {}},
    {"iteration": 1, "decision": "accepted", "stage": "decide", "reason": "beats the noise",
     "start": START, "best": BEST, "base": START, "candidate": {"holdout": {"score": 0.7}, "train": {"score": 0.75}},
     "proposal": {"kind": "config", "delta": {"top_k": 5, "alpha": 0.6}},
     "votes": [], "stats": {"bootstrap": {"lo": 0.05, "hi": 0.55}, "mcnemar": {"p": 0.0312}}},
]
LOOP_MD = (
    "Started from top_k=1, alpha=service: held-out score 0.400 (n=10), training 0.500.\nBest after 2 iteration(s): "
    "top_k=5, alpha=0.6 in `self_improve/candidates/1`: held-out 0.700, training 0.750.\n1 accepted, 1 reverted, 0 "
    "refused. A change is kept only when its held-out gain beats the noise (exact McNemar p < 0.05 or a "
    "paired-bootstrap 95% interval above 0), exceeds min_gain, and no question type, category or level drops more "
    "than 5 points.\n\n| # | proposal | votes | training | held-out | paired test | decision |\n"
    "|---|---|---|---|---|---|---|\n| 1 | top_k=5, alpha=0.6 | - | 0.500 -> 0.750 | 0.400 -> 0.700 | p=0.0312, CI "
    "[+0.05, +0.55] | **accepted** (decide): beats the noise |\n| 2 | diff qa_reader.txt (+2/-1) | 1/2 | 0.750 -> "
    "0.800 | 0.700 -> 0.650 | - | **reverted** (re_eval): held-out / drop in multi-session |\n\nIteration 2 prompt "
    "diff (reverted):\n```diff\n--- a\n+++ b\n-old line\n+new line\n+another\n```\n")


def test_the_multi_seed_block_is_a_table_of_categories_and_a_line_naming_the_noisy_questions():
    section = multi_seed_section(SEEDS)
    assert section == Section("Multi-seed statistics", (
        Table(("category", "seeds", "mean", "std", "95% interval"),
              (("A", "2", "0.500", "n/a", "n/a"), ("B", "3", "0.667", "0.577", "0.100-1.000"))),
        Lines(("2 question(s) vary by more than 10 points across seeds: a#1, c#0",))))
    assert section_pair(section) == ("Multi-seed statistics", SEEDS_MD)
    assert section_pair(multi_seed_section({})) == ("Multi-seed statistics", (
        "| category | seeds | mean | std | 95% interval |\n|---|---|---|---|---|\n\n"
        "0 question(s) vary by more than 10 points across seeds."))


def test_the_self_improve_block_keeps_its_markdown_in_the_summary_as_rendered_from_its_section(tmp_path: Path):
    (tmp_path / "self_improve.jsonl").write_text("".join(json.dumps(line) + "\n" for line in ITERATIONS),
                                                 encoding="utf-8")
    block = self_improve_summary(tmp_path)
    assert block is not None and block["markdown"] == LOOP_MD  # summary.json's bytes
    assert (block["iterations"], block["accepted"], block["reverted"], block["holdout_gain"]) == (2, 1, 1, 0.3)


def test_both_blocks_close_the_report_under_their_titles(tmp_path: Path):
    (tmp_path / "self_improve.jsonl").write_text(json.dumps(ITERATIONS[1]) + "\n", encoding="utf-8")
    loop = self_improve_summary(tmp_path)
    summary = RunSummary.model_validate({"multi_seed": SEEDS, "self_improve": loop})
    assert extra_sections(summary, SUITE_LOOKUP) == [("Multi-seed statistics", SEEDS_MD),
                                                     ("Self-improve loop", loop["markdown"] if loop else "")]


def test_the_multi_seed_table_shows_the_spread_and_interval_summarize_seeds_writes():
    """The table read `std` and `ci95`, keys the writer never wrote, so every report said "n/a" for both."""
    rows = [{"seed": seed, "question_key": f"q{i}", "category": "single", "score": score}
            for seed, scores in ((1, (1, 1, 0, 1)), (2, (1, 0, 0, 1)), (3, (1, 1, 1, 1))) for i, score in enumerate(scores)]
    table = multi_seed_section(summarize_seeds(rows)).parts[0]
    assert isinstance(table, Table)
    ((category, seeds, mean, std, interval),) = table.rows
    assert (category, seeds, mean, std) == ("single", "3", "0.750", "0.250")
    low, high = (float(x) for x in interval.split("-"))
    assert low < 0.75 < high   # a t interval around the mean over 3 seeds, not "n/a"
