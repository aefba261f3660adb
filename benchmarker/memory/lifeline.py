"""Die with the launcher, for the harness: the rule lives in the embedded service
(embedded_memory/lifeline.py, standard library only), which watches its own launcher with
it; the harness starts a third-party stdio server under its guard (`guard_command`, used by launch.py).
This module re-exports it, so the service imports nothing of the harness."""

from __future__ import annotations

from embedded_memory.lifeline import (
    GRACE_S,
    POLL_S,
    PR_SET_PDEATHSIG,
    guard,
    guard_command,
    launcher_gone,
    main,
    set_parent_death_signal,
    stop_self,
    watch,
)

__all__ = ["GRACE_S", "POLL_S", "PR_SET_PDEATHSIG", "guard", "guard_command", "launcher_gone", "main",
           "set_parent_death_signal", "stop_self", "watch"]
