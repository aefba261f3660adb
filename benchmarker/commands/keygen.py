"""`keygen --out PREFIX`: an Ed25519 key pair for signing bundles (`export --sign`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, metavar="PREFIX",
                        help="writes PREFIX (the private key, mode 600) and PREFIX.pub (the public key to publish)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.bundle.signing import keygen

    private, public = keygen(args.out)
    print(f"wrote {private} (private: keep it, mode 600) and {public} (publish it; readers pass it to "
          "`verify --public-key`)")
    return 0


COMMAND = Command(name="keygen", help="make an Ed25519 key pair to sign bundles with",
                  add_arguments=add_arguments, run=run,
                  description="Write an Ed25519 key pair: PREFIX holds the private key (PEM PKCS8, mode 600) that "
                              "`export --sign PREFIX` signs with; PREFIX.pub the public key `verify --public-key` "
                              "checks against. An existing file is never overwritten.",
                  example="mycelian-longmemeval keygen --out keys/me")
