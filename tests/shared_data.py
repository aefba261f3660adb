"""Where the shared reference data lives: `../shared` beside the repository (never copied into it)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL_5Q = SHARED / "data" / "longmemeval" / "longmemeval_s_5q.json"
