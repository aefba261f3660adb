"""Every file the harness writes goes through benchmarker/log's writers, which mask credentials: a new
`write_text` / `open(..., "w")` elsewhere would be an exit that skips the masking point."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "benchmarker"
WRITE = re.compile(r"\.write_text\(|\.write_bytes\(|\bjson\.dump\(|\bopen\([^)]*[\"'](?:w|a|x)b?\+?[\"']")
# Writes that are not run output, each with why it may bypass the masking writers.
ALLOWED = {
    "memory/client.py": "an MCP stdio server's own stderr, handed to the child process as a file",
}
# The embedded memory service (a top-level package of its own) writes only these, none of them run output.
SERVICE = PACKAGE.parent / "embedded_memory"
SERVICE_WRITES = {
    "launcher.py": "the embedded service's log: its own output (its CLI masks it) and the command line",
    "store.py": "the database lock file (a PID)",
    "embedders.py": "a lock file",
}


def test_no_file_is_written_around_the_masking_writers() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("log/") or rel in ALLOWED:
            continue
        lines = [f"{rel}:{n}: {line.strip()}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if WRITE.search(line)]
        if lines:
            found[rel] = lines
    assert found == {}, "write through benchmarker.log.jsonl (write_json_atomic / write_text_atomic / JsonlWriter)"


def test_the_allow_list_names_files_that_still_write() -> None:
    stale = [rel for rel in ALLOWED if not WRITE.search((PACKAGE / rel).read_text(encoding="utf-8"))]
    assert stale == []


def test_the_embedded_service_writes_only_its_log_and_lock_files() -> None:
    writers = sorted(path.relative_to(SERVICE).as_posix() for path in SERVICE.rglob("*.py")
                     if WRITE.search(path.read_text(encoding="utf-8")))
    assert writers == sorted(SERVICE_WRITES)
