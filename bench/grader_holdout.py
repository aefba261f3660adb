"""The deterministic grader's agreement on each shared labels file when that file played no part in its rules.

Every labels file in ../shared/data/judge was read by bench/grader_agreement.py while the grader's rules were
tuned (commits 5a7e987 to c4490ba; benchmarker/scoring/calibration/development.py marks them), so today's
figures on them are a development fit. The held-out figure for each file is the grader as it was before any
of them shaped it: commit PRE_TUNING, checked out into a temporary git worktree and run on the same files.
Prints both, per file, and writes runs/bench/grader_holdout.json.

    python bench/grader_holdout.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PRE_TUNING = "5a7e987"   # bench/grader_agreement.py added; the grader's rules not yet tuned on any labels file
ROW = re.compile(r"^\| \*\*(?P<name>[^*]+)\*\* \| (?P<n>\d+) \| (?P<agreement>[\d.]+) \| (?P<kappa>[-\d.]+|nan) \|")


def agreement_rows(checkout: Path) -> dict[str, dict[str, float]]:
    """bench/grader_agreement.py's per-file rows, run from `checkout` (its ../shared must be the shared data)."""
    out = subprocess.run([sys.executable, "bench/grader_agreement.py", "--out", str(checkout / "runs" / "ga")],
                         cwd=checkout, env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        if (m := ROW.match(line)) is not None:
            rows[m["name"]] = {"n": int(m["n"]), "agreement": float(m["agreement"]), "kappa": float(m["kappa"])}
    return rows


def main() -> None:
    if not (SHARED / "data" / "judge").is_dir():
        raise SystemExit(f"{SHARED}/data/judge not found")
    now = agreement_rows(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "shared").symlink_to(SHARED)   # the old bench reads ../shared from its checkout
        checkout = base / "grader"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(checkout), PRE_TUNING], cwd=ROOT, check=True)
        try:
            before = agreement_rows(checkout)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=ROOT, check=False)
    rows = [{"file": name, "n": now[name]["n"], "held_out_agreement": before[name]["agreement"],
             "held_out_kappa": before[name]["kappa"], "development_fit_agreement": now[name]["agreement"],
             "development_fit_kappa": now[name]["kappa"]} for name in now if name in before]
    print(f"| labels file | n | held out: grader at {PRE_TUNING} (agreement / kappa) | development fit: today's grader |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['file']} | {r['n']} | {r['held_out_agreement']:.3f} / {r['held_out_kappa']:.3f} | "
              f"{r['development_fit_agreement']:.3f} / {r['development_fit_kappa']:.3f} |")
    out = ROOT / "runs" / "bench" / "grader_holdout.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"pre_tuning_commit": PRE_TUNING, "rows": rows}, indent=2), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
