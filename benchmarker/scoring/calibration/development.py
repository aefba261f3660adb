"""Which labels files a judge was developed on: agreement on those is a fit, never a calibration.

A judge's rules (the deterministic grader's) or prompts tuned while looking at a labels file agree with
that file better than with answers they never saw, so `calibrate` reports such a file apart
("development fit") and presents only the other files as the calibration ("held out"). A file is
marked by the user (`calibrate --development FILE`) or known to the judge: `Judge.developed_on` maps the
sha256 of each labels file its development read to how it was used (the deterministic grader's are
below; bench/grader_holdout.py measures the grader as it was before any of them shaped it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from benchmarker.datasets.source import dataset_sha256

_TUNED = ("its rules were tuned while bench/grader_agreement.py read every ../shared/data/judge labels file "
          "(commits 5a7e987 to c4490ba, 2026-11-26)")
# sha256 of ../shared/data/judge labels files (engrava gpt-4o; the three hunk0724 gpt-4o-mini) -> how the
# deterministic grader's development used them
GRADER_DEVELOPED_ON: Mapping[str, str] = {
    "b3b31afc801b2c0d7908aa918a6d7a07e3d2373ff58d5cbe7f9e79fd80e406dc": _TUNED,
    "20553088d5ca9eb8eacbcb846154ecff0c3feeaf1559e793228f9f937d004d2c": _TUNED,
    "a0c4a4c2a14d7619e3a1707fa97a9f3ab2191c6321d7fd42c67c591f4fcb4c66": _TUNED,
    "aed480b9920011302af75f76c3d91f9645e2997b42fbc68b35cfafb892b04233": _TUNED,
}
MARKED = "marked with --development: used in developing this judge"



def development_notes(paths: Iterable[Path], names: Iterable[str], *, marked: Iterable[Path],
                      developed_on: Mapping[str, str]) -> dict[str, str]:
    """{file name: why it is a development file} for the labels files that are (marked, or known to the judge)."""
    marked_paths = {Path(p).resolve() for p in marked}
    notes: dict[str, str] = {}
    for path, name in zip(paths, names, strict=True):
        if Path(path).resolve() in marked_paths:
            notes[name] = MARKED
        elif developed_on and (known := developed_on.get(dataset_sha256(path))):
            notes[name] = known
    return notes
