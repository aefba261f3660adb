"""`verify NAME.tar.gz`: hashes, signature, summary.json re-derived from the result lines, the dataset."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", type=Path, metavar="NAME.tar.gz", help="a bundle written by `export`")
    parser.add_argument("--dataset", type=Path, default=None, metavar="FILE",
                        help="the dataset file: its sha256, every selected question answered once, each gold answer")
    parser.add_argument("--public-key", type=Path, default=None, metavar="PUB",
                        help="the signer's public key (PREFIX.pub from `keygen`): the bundle must be signed by it")


def run(args: argparse.Namespace) -> int:
    from benchmarker.bundle.verify import verify

    return verify(args.bundle, dataset=args.dataset, public_key=args.public_key, say=print)


COMMAND = Command(name="verify", help="check a bundle: hashes, signature, every number re-derived from its lines",
                  add_arguments=add_arguments, run=run,
                  description="Check a result bundle without unpacking it: every file's sha256, the signature (with "
                              "--public-key), every number of summary.json re-derived from results.jsonl by code "
                              "independent of the writer's, and with --dataset the dataset's hash, questions and "
                              "gold answers. One line per check, then VERIFIED or the first failure. Exit codes: 0 "
                              "verified; 2 unreadable or unsafe archive; 4 a hash differs; 5 signature; 6 a number "
                              "differs; 7 the dataset does not match.",
                  example="mycelian-longmemeval verify my-run.tar.gz --dataset data/longmemeval_s.json "
                          "--public-key keys/me.pub")
