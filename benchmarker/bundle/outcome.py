"""A failed `verify` check: its one line and the exit code of its class (bundle/verify.py lists them)."""

from __future__ import annotations

EXIT_UNSAFE, EXIT_HASH, EXIT_SIGNATURE, EXIT_NUMBERS, EXIT_DATASET = 2, 4, 5, 6, 7


class Failed(Exception):
    """A check failed: its line and the exit code of its class."""

    def __init__(self, line: str, code: int):
        super().__init__(line)
        self.code = code
