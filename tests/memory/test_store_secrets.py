"""The embedded memory database masks credentials in what it stores unless `[memory] store_secrets = true`
(issue 42, item 2): dataset text holding keys (878 copies in one run) reaches memory.sqlite masked, also
when an entry's summary cut goes through a key; with the key set, the text is stored as written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.datasets.schema import Message, Session
from benchmarker.memory.client import MemoryClient
from benchmarker.memory.drivers.open import memory_server
from benchmarker.memory.entries import entry_text
from benchmarker.memory.launch import mapping_for
from benchmarker.memory.limits import SUMMARY_CHARS
from tests.log.test_mask_before_cut import SECRETS, leaks, straddling

SESSION = Session(session_id="s1", date="2023/05/01 (Mon) 10:00", messages=())


def _config(tmp_path: Path, store_secrets: bool | None):
    key = "" if store_secrets is None else f"store_secrets = {str(store_secrets).lower()}\n"
    path = tmp_path / "run.toml"
    path.write_text(f'run_id = "secrets"\n[dataset]\nkind = "sample"\n[memory]\nembedder = "none"\nalpha = 0.0\n{key}'
                    f'[run]\nprogress = false\noutput_dir = "{tmp_path / "runs"}"\n', encoding="utf-8")
    return load_config(path)


async def _ingest(config, run_dir: Path, texts: list[str]) -> None:
    """What a retrieval run's ingestion does: each message as an entry of the embedded service, then a context."""
    async with memory_server(config.memory, config.config_path, run_dir, mapping_for(config.memory)) as launch, \
            MemoryClient.connect(launch.url, headers=launch.headers) as client:
        vault_id = json.loads(await client.call("create_vault", {"title": "v", "description": ""}))["vaultId"]
        memory_id = json.loads(await client.call("create_memory_in_vault", {
            "vault_id": vault_id, "title": "m", "memory_type": "NOTES", "description": ""}))["memoryId"]
        for text in texts:
            raw, summary = entry_text(SESSION, Message(role="user", content=text))
            await client.call("add_entry", {"vault_id": vault_id, "memory_id": memory_id, "raw_entry": raw,
                                            "summary": summary, "tags": {"note": text[-60:]}})
        await client.call("put_context", {"vault_id": vault_id, "memory_id": memory_id, "content": texts[0]})
        await client.call("await_consistency", {"memory_id": memory_id})


def _stored(run_dir: Path) -> str:
    """Every text column of memory.sqlite (entries, contexts, the keyword index), and the files' raw bytes."""
    db = sqlite3.connect(run_dir / "memory.sqlite")
    rows = [json.dumps(row) for table in ("entries", "contexts") for row in db.execute(f"SELECT * FROM {table}")]
    db.close()
    files = b"".join(p.read_bytes() for p in run_dir.glob("memory.sqlite*"))
    return "\n".join(rows) + files.decode("latin-1")


@pytest.mark.parametrize("secret", SECRETS)
async def test_the_memory_database_holds_no_credential_by_default(tmp_path: Path, secret: str) -> None:
    config = _config(tmp_path, None)
    assert config.memory.store_secrets is False
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    lead = "[2023/05/01 (Mon) 10:00] user: "  # entry_text's header: the summary cut falls 12 characters into the key
    texts = [f"my key is {secret}, keep it safe", straddling(secret, SUMMARY_CHARS, lead=lead)[len(lead):]]
    await _ingest(config, run_dir, texts)
    stored = _stored(run_dir)
    assert "keep it safe" in stored and "***" in stored
    assert not leaks(stored, secret)


async def test_store_secrets_keeps_dataset_text_as_written(tmp_path: Path) -> None:
    config = _config(tmp_path, True)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    await _ingest(config, run_dir, [f"my key is {secret}, keep it safe" for secret in SECRETS])
    stored = _stored(run_dir)
    assert all(secret in stored for secret in SECRETS)
