"""Graph nodes called directly, against one embedded memory service and the offline models.

One service process serves the whole session (starting it costs about a second); every test opens
its own MCP session on it, since a session must close in the task that opened it and each test
runs in its own event loop. Tests stay apart by run id and vault title: `write_config` names both
after the test.
"""

from __future__ import annotations

import asyncio
import hashlib
import re

import pytest

from benchmarker.config import load_config
from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings


@pytest.fixture(scope="session")
def memory_service(tmp_path_factory):
    """The embedded Mycelian service (BM25 only, no embedder) for the whole session."""
    tmp = tmp_path_factory.mktemp("service")
    settings = ServiceSettings(host="127.0.0.1", port=0, db_path=str(tmp / "memory.sqlite"), embedder="none",
                               alpha=0.0)
    with EmbeddedMemoryService(settings, log_path=tmp / "service.log") as service:
        yield service


@pytest.fixture
async def client(memory_service):
    """A real MCP session (streamable HTTP on 127.0.0.1) to the session's service.

    The session lives in a task of its own: MCP's transport must be closed by the task that opened
    it, and pytest-asyncio runs a fixture's setup and teardown in different tasks."""
    opened: asyncio.Future[MemoryClient] = asyncio.get_running_loop().create_future()
    close = asyncio.Event()

    async def hold() -> None:
        try:
            async with MemoryClient.connect(memory_service.mcp_url, headers=memory_service.auth_headers) as memory_client:
                opened.set_result(memory_client)
                await close.wait()
        except BaseException as err:
            if not opened.done():
                opened.set_exception(err)
            raise

    holder = asyncio.create_task(hold())
    yield await opened
    close.set()
    await holder


@pytest.fixture
def write_config(tmp_path, request):
    """`write_config(dataset_toml, name="", run="", params="")` -> a loaded RunConfig with the
    embedded defaults (embedder "none", alpha 0), no progress bar, its run directory under tmp_path,
    and a run id and vault title of this test's own. `run` / `params` add keys to those tables."""

    def write(dataset: str, name: str = "", run: str = "", params: str = ""):
        digest = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:6]
        test = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name.removeprefix("test_"))[:24].strip("-") + "-" + digest
        run_id = f"{test}-{name}" if name else test
        path = tmp_path / f"{run_id}.toml"
        path.write_text(f'run_id = "{run_id}"\nvault_title = "{run_id}"\n{dataset}\n'
                        f'[params]\n{params}\n'
                        f'[memory]\nembedder = "none"\nalpha = 0.0\n'
                        f'[run]\nprogress = false\noutput_dir = "{tmp_path / "runs"}"\n{run}\n', encoding="utf-8")
        return load_config(path)

    return write
