"""How the end-to-end tests drive the product: the CLI as a subprocess, and its JSONL files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, cwd: Path, timeout: float = 900, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess:
    """`mycelian-longmemeval ARGS...` with this interpreter; output captured as text."""
    env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "benchmarker.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def read_lines(path: Path) -> list[dict]:
    """Every record of a finished JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
