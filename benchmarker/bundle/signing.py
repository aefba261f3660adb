"""Ed25519 keys and signatures over bundle.json's exact bytes (`cryptography`'s implementation)."""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable
from pathlib import Path

from benchmarker.errors import UserError
from benchmarker.log.jsonl import write_bytes_atomic


def keygen(prefix: Path) -> tuple[Path, Path]:
    """Write PREFIX (PEM PKCS8 private key, mode 600) and PREFIX.pub (PEM SubjectPublicKeyInfo)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    public_path = prefix.with_name(prefix.name + ".pub")
    for path in (prefix, public_path):
        if path.exists():
            raise UserError(f"keygen --out {prefix}: {path} exists; choose another prefix (a key is never overwritten)")
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(prefix, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(private)
    write_bytes_atomic(public_path, public)  # the public key is meant to be shared: nothing to mask
    return prefix, public_path


def signer(key_path: Path) -> Callable[[bytes], str]:
    """A function that signs bytes with the Ed25519 private key in `key_path` (base64 text)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except OSError as exc:
        raise UserError(f"--sign {key_path}: cannot read the key ({exc.strerror})") from None
    except (ValueError, TypeError) as exc:
        raise UserError(f"--sign {key_path}: not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UserError(f"--sign {key_path}: not an Ed25519 key (make one with `mycelian-longmemeval keygen`)")
    return lambda data: base64.b64encode(key.sign(data)).decode("ascii")


def signature_ok(public_key_path: Path, data: bytes, signature_text: bytes) -> bool:
    """Whether `signature_text` (base64) is the key's Ed25519 signature of `data`; UserError for an unusable key."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(public_key_path.read_bytes())
    except OSError as exc:
        raise UserError(f"--public-key {public_key_path}: cannot read the key ({exc.strerror})") from None
    except ValueError as exc:
        raise UserError(f"--public-key {public_key_path}: not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise UserError(f"--public-key {public_key_path}: not an Ed25519 public key")
    try:
        key.verify(base64.b64decode(signature_text.strip(), validate=True), data)
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True
