"""`export RUN_DIR --out NAME.tar.gz`: the run's result files and bundle.json, for someone else to `verify`."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a finished run directory")
    parser.add_argument("--out", type=Path, required=True, metavar="NAME.tar.gz", help="the bundle to write")
    parser.add_argument("--sign", type=Path, default=None, metavar="KEY",
                        help="sign bundle.json with this Ed25519 private key (from `keygen`): adds bundle.sig")
    parser.add_argument("--with-memory", action="store_true",
                        help="include the memory database (memory.sqlite); left out by default: it holds the "
                             "dataset's conversations")


def run(args: argparse.Namespace) -> int:
    from benchmarker.bundle.write import write_bundle
    from benchmarker.run.manifest import utc_now

    sign = None
    if args.sign is not None:
        from benchmarker.bundle.signing import signer

        sign = signer(args.sign)
    bundle = write_bundle(args.run_dir, args.out, with_memory=args.with_memory, created_at=utc_now(), sign=sign)
    signed = f", signed with {args.sign}" if sign else ""
    print(f"wrote {args.out}: {len(bundle['files'])} files of run {bundle['run_id']} ({bundle['suite']}){signed}; "
          f"check it with: mycelian-longmemeval verify {args.out}")
    return 0


COMMAND = Command(name="export", help="write a run's results as a bundle anyone can verify (.tar.gz)",
                  add_arguments=add_arguments, run=run,
                  description="Write a result bundle: the run's result files (summary, manifest, results, answers, "
                              "hypotheses, reports, oracle/, baselines/, scores/, plots), masked again, and "
                              "bundle.json with each file's sha256, the dataset's hash and question ids, the config, "
                              "the judge and the versions. --sign adds an Ed25519 signature (docs/publishing.md).",
                  example="mycelian-longmemeval export runs/my-run --out my-run.tar.gz --sign keys/me")
