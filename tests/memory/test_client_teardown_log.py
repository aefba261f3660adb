"""A reply that reaches the MCP client after this side closed its session (a Ctrl-C tearing the run down) is not
printed as a traceback above the run's "interrupted" line (issue 44, item 4); every other client error still is."""

from __future__ import annotations

import logging
import sys

import anyio
import pytest

import benchmarker.memory.client  # noqa: F401  (installs the filter on the MCP client's logger)

LOGGER = logging.getLogger("mcp.client.streamable_http")


def record(exc: BaseException | None, msg: str = "Error parsing JSON response") -> logging.LogRecord:
    if exc is None:
        return LOGGER.makeRecord(LOGGER.name, logging.ERROR, __file__, 1, msg, (), None)
    try:
        raise exc
    except BaseException:
        return LOGGER.makeRecord(LOGGER.name, logging.ERROR, __file__, 1, msg, (), sys.exc_info())


def test_a_reply_after_the_session_closed_is_not_logged() -> None:
    assert not LOGGER.filter(record(anyio.ClosedResourceError()))


@pytest.mark.parametrize("kept", [record(ValueError("bad json")), record(None),
                                  record(anyio.ClosedResourceError(), "Error in post_writer")])
def test_other_client_errors_are_still_logged(kept: logging.LogRecord) -> None:
    assert LOGGER.filter(kept)
