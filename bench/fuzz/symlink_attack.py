"""Group "symlinks": a run directory seeded with links before a verb writes it (issue 36).

Run ids are predictable, so anyone who can write a shared output folder can plant `<file> -> victim`
where the harness is about to write. Each case copies one small finished run, plants a link (to a victim
file outside the run directory) at a name a verb creates or replaces, runs the verb through the real CLI
entry point, and checks the victim:
  clean    exit 2, one `error:` line naming the link; the victim untouched
  ok       exit 0 and the victim untouched (the verb does not write that name)
  unclear  refused, but the line does not name the link
  leaked   the victim's content changed (written through the link)
  crash    a traceback, or no error line
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bench.fuzz.outcome import Tally
from bench.fuzz.rundir_attack import Outcome, make_source, run_cli

VICTIM = "the victim's own data\n"
# verb -> the names it creates or replaces in the run directory
WRITES = {
    "report": (".lock", "summary.json", "summary.json.tmp", "report.md", "report.md.tmp", "report.html",
               "plots/accuracy_by_type.png"),
    "score": (".lock",),
    "run": (".lock", "manifest.json", "manifest.json.tmp", "answers.jsonl", "results.jsonl", "decisions.jsonl",
            "ledger.jsonl", "summary.json", "errors.jsonl"),
}
QUICK = {"report": (".lock", "summary.json.tmp", "report.md"), "score": (".lock",),
         "run": (".lock", "results.jsonl", "ledger.jsonl")}


def argv(verb: str, work: Path) -> list[str]:
    if verb == "report":
        return ["report", str(work / "fz-src")]
    if verb == "score":
        return ["score", str(work / "fz-src"), str(work / "source.toml")]
    return ["run", str(work / "source.toml")]  # the same command again: a resume into the seeded directory


def judge(outcome: Outcome, link: Path, victim: Path) -> tuple[str, str]:
    if victim.read_text(encoding="utf-8") != VICTIM:
        return "leaked", f"{link.name}: the victim was written through the link"
    return refusal(outcome, link)


def refusal(outcome: Outcome, link: Path) -> tuple[str, str]:
    """Nothing leaked: how the verb answered (ok, a clean one-line refusal naming `link`, unclear, a crash)."""
    if outcome.error:
        return "crash", f"traceback: {outcome.error}"
    if outcome.code == 0:
        return "ok", ""
    errors = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
    if "Traceback" in outcome.stderr or not errors:
        return "crash", f"exit {outcome.code}, no error line: {outcome.stderr.strip()[-300:]!r}"
    if str(link) not in errors[0]:
        return "unclear", f"does not name {link}: {errors[0][:300]}"
    return "clean", ""


def case_copy(base: Path, source: Path, number: int) -> Path:
    """A fresh copy of the source run (`<case>/fz-src`) whose config (`<case>/source.toml`) writes there."""
    work = base / f"case{number}"
    shutil.copytree(source, work / "fz-src", ignore=shutil.ignore_patterns(".lock"))
    text = (base / "source" / "source.toml").read_text(encoding="utf-8")
    (work / "source.toml").write_text(text.replace(f'output_dir = "{base / "source"}"', f'output_dir = "{work}"'),
                                      encoding="utf-8")
    return work


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "symlinks"
    source = make_source(base / "source", limit=1)
    number = 0
    for verb, names in (QUICK if quick else WRITES).items():
        for name in names:
            number += 1
            work = case_copy(base, source, number)
            victim = work / "victim.txt"
            victim.write_text(VICTIM, encoding="utf-8")
            link = work / "fz-src" / name
            link.parent.mkdir(parents=True, exist_ok=True)
            link.unlink(missing_ok=True)
            link.symlink_to(victim)
            result, detail = judge(run_cli(argv(verb, work)), link, victim)
            tally.add(result, f"{verb}.{name}", detail)
            shutil.rmtree(work, ignore_errors=True)
    return tally
