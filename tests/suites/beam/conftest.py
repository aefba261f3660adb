"""Shared BEAM test fixtures: the shared sample (read in place, skipped when absent) and a fake BEAM clone
(tests/suites/beam/beam_fakes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared_data import SHARED
from tests.suites.beam.beam_fakes import write_fake_clone

BEAM_DATA = SHARED / "data" / "beam"
BEAM_100K = BEAM_DATA / "chats" / "100K"


@pytest.fixture
def beam_100k() -> Path:
    """The shared 100K folder (conversations 1, 2, 3); the test is skipped where it is absent."""
    if not (BEAM_100K / "1" / "chat.json").is_file():
        pytest.skip(f"the shared BEAM sample is absent ({BEAM_100K}); see ../shared/data/beam/README.md")
    return BEAM_100K


@pytest.fixture
def fake_clone(tmp_path: Path) -> Path:
    """A BEAM clone holding only the two judge files, with texts made up for the tests."""
    return write_fake_clone(tmp_path / "BEAM")
