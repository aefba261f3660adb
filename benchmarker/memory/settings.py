"""`MemorySettings`: what opening the run's memory reads of its config, so no memory module takes the whole config.

`memory.drivers.open.open_memory` reads the `[memory]` table and names the config file in its errors; the
Mycelian driver also reads which vault it uses (`vault_id`, else the one titled `vault_title`). The composition
roots (run/parts.py for a local run, run/ray_worker.py in each Ray worker) build it from the loaded config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarker.config_schema import MemoryConfig


@dataclass(frozen=True)
class MemorySettings:
    """The `[memory]` table, the vault keys and the config file (None: a config built in code)."""

    memory: MemoryConfig
    vault_title: str = "longmemeval"
    vault_id: str = ""
    config_path: Path | None = None
