"""Group "dirlinks": a run directory whose sub-folders are links to another folder (issue 42, item 1).

The "symlinks" group plants `<file> -> victim`; this one replaces a whole folder the harness writes into
(`plots/`, `official/`, `oracle/`, `scores/`, `baselines/<name>/`, `data/`) with a link to a folder outside
the run directory, runs the verb through the real CLI entry point and checks that folder:
  clean    exit 2, one `error:` line naming the link; the folder untouched
  ok       exit 0 and the folder untouched (the verb does not write below that name)
  unclear  refused, but the line does not name the link
  leaked   something in the folder was created, written or appended to
  crash    a traceback, or no error line
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bench.fuzz.outcome import Tally
from bench.fuzz.rundir_attack import Outcome, make_source, run_cli
from bench.fuzz.symlink_attack import case_copy, refusal

KEEP = "the other folder's own file\n"
# verb -> the folders below the run directory it writes into
WRITES = {
    "report": ("plots", "official"),
    "oracle": ("oracle",),
    "score": ("scores", "scores/deterministic"),
    "baselines": ("baselines", "baselines/no_memory"),
    "run": ("data", "plots", "official"),
}
QUICK = {"report": ("plots",), "oracle": ("oracle",), "score": ("scores",), "baselines": ("baselines",),
         "run": ("data",)}


def argv(verb: str, work: Path) -> list[str]:
    run, config = str(work / "fz-src"), str(work / "source.toml")
    return {"report": ["report", run], "oracle": ["oracle", run], "score": ["score", run, config],
            "baselines": ["baselines", run, "--only", "no_memory"], "run": ["run", config]}[verb]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(folder.rglob("*"))}


def judge(outcome: Outcome, link: Path, before: dict[str, bytes], other: Path) -> tuple[str, str]:
    if snapshot(other) != before:
        return "leaked", f"{link.name}: written through the link into {other}"
    return refusal(outcome, link)


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "dirlinks"
    source = make_source(base / "source", limit=1)
    number = 0
    for verb, subs in (QUICK if quick else WRITES).items():
        for sub in subs:
            number += 1
            work = case_copy(base, source, number)
            other = work / "other"
            other.mkdir()
            (other / "keep.txt").write_text(KEEP, encoding="utf-8")
            link = work / "fz-src" / sub
            if link.is_dir():
                shutil.rmtree(link)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(other, target_is_directory=True)
            before = snapshot(other)
            result, detail = judge(run_cli(argv(verb, work)), link, before, other)
            tally.add(result, f"{verb}.{sub}", detail)
            shutil.rmtree(work, ignore_errors=True)
    return tally
