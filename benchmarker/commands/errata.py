"""`errata derive PUBLISHED CORRECTED --out FILE`: an errata file from a corrected copy of a dataset."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarker.commands.base import Command
from benchmarker.errors import UserError

if TYPE_CHECKING:
    from benchmarker.errata.gold import GoldIndex, GoldReader


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="errata_verb", required=True, metavar="derive",
                                  help="derive: write an errata file from a published and a corrected copy of a dataset")
    derive = verbs.add_parser("derive", help="write an errata file from a published and a corrected copy of a dataset",
                              description="Compare a corrected copy of a dataset with the published file, question "
                                          "by question, and write one errata line per changed answer, evidence or "
                                          "category (turn and quote left empty for you to fill).")
    derive.add_argument("published", type=Path, metavar="PUBLISHED.json", help="the dataset file as published")
    derive.add_argument("corrected", type=Path, metavar="CORRECTED.json", help="a corrected copy of it")
    derive.add_argument("--out", type=Path, required=True, metavar="FILE", help="the errata file to write (JSON lines)")
    derive.add_argument("--kind", default="", metavar="KIND",
                        help="the dataset's kind (locomo, longmemeval); default: the first whose loader reads PUBLISHED")
    derive.add_argument("--source", default="", metavar="URL",
                        help="the URL of the corrected copy, written as every line's source (default: left empty)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.errata.derive import derive_lines, derived_note, errata_text, missing_questions
    from benchmarker.log.jsonl import write_text_atomic

    reader, published = _reader(args.kind, args.published)
    if not args.corrected.is_file():
        raise UserError(f"errata derive: {args.corrected}: no such file")
    corrected = reader(args.corrected, None)
    lines = derive_lines(published, corrected, args.source)
    only_published, only_corrected = missing_questions(published, corrected)
    try:
        write_text_atomic(args.out, errata_text(lines))
    except OSError as err:
        raise UserError(f"errata derive: cannot write {args.out}: {err.strerror or err}") from None
    print(derived_note(args.out, len(lines)))
    if only_published or only_corrected:
        print(f"note: {only_published} question(s) only in {args.published}, {only_corrected} only in "
              f"{args.corrected}: not corrections, left out")
    return 0


def _reader(kind: str, published: Path) -> tuple[GoldReader, GoldIndex]:
    """The gold reader of `kind` (or of the first suite whose reader loads `published`) and the published gold."""
    from benchmarker.errors import DatasetError
    from benchmarker.registry import DATASET_KINDS, suite

    if not published.is_file():
        raise UserError(f"errata derive: {published}: no such file")
    readers = {k: reader for k in DATASET_KINDS if (reader := suite(k).errata_gold) is not None}
    if kind and kind not in readers:
        raise UserError(f"errata derive: --kind {kind!r}: errata read the kinds {', '.join(readers)}")
    for name, reader in readers.items():
        if kind and name != kind:
            continue
        try:
            return reader, reader(published, None)
        except DatasetError:
            if kind:
                raise
    raise UserError(f"errata derive: {published}: not a dataset any of {', '.join(readers)} reads; name it with --kind")


COMMAND = Command(name="errata", help="gold errata: derive an errata file from a corrected copy of a dataset",
                  add_arguments=add_arguments, run=run,
                  description="Gold errata ([dataset] errata = \"FILE\": corrections to a dataset's gold, checked "
                              "against the dataset, reported beside the published accuracy). `errata derive` writes "
                              "such a file from a published and a corrected copy of a dataset (LoCoMo or LongMemEval "
                              "format); fill each line's turn and quote before using it.",
                  example="mycelian-longmemeval errata derive data/locomo10.json data/locomo10_corrected.json "
                          "--out locomo.errata.jsonl --source https://example.org/corrected-locomo")
