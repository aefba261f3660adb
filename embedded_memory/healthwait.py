"""Wait until a memory service reports healthy on GET /v0/health (Mycelian's or the embedded one).

    python -m embedded_memory.healthwait --url http://localhost:11545/v0/health --timeout 180

Exit 0 once healthy; exit 1 with the last error and what to check when the timeout passes, or as
soon as the process given with --pid has exited (a service that refused to start).
Healthy means HTTP 200 and a JSON `status` of "healthy" (current Mycelian, embedded) or "UP"
(older Mycelian).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass

import httpx

HEALTHY_STATUSES = frozenset({"healthy", "up", "ok"})
DEFAULT_URL = "http://localhost:11545/v0/health"


@dataclass(frozen=True)
class HealthResult:
    healthy: bool
    elapsed_s: float
    detail: str  # the health JSON when healthy, else the last error


def probe(url: str, timeout_s: float = 2.0) -> tuple[bool, str]:
    """One GET: (healthy?, what was seen)."""
    try:
        response = httpx.get(url, timeout=timeout_s)
    except httpx.HTTPError as err:
        return False, f"{type(err).__name__}: {err}"
    try:
        body = response.json()
    except ValueError:
        body = None
    status = str(body.get("status", "")) if isinstance(body, dict) else ""
    if response.status_code == 200 and status.lower() in HEALTHY_STATUSES:
        return True, response.text
    return False, f"HTTP {response.status_code}: {response.text[:300]}"


def wait_healthy(url: str, timeout_s: float, interval_s: float = 1.0, pid: int | None = None) -> HealthResult:
    """Poll `url` until healthy, `timeout_s` has passed, or process `pid` (when given) has exited."""
    started = time.monotonic()
    detail = "no attempt made"
    while True:
        ok, detail = probe(url, timeout_s=min(5.0, max(0.5, timeout_s)))
        elapsed = time.monotonic() - started
        if ok:
            return HealthResult(True, elapsed, detail)
        if pid is not None and not _alive(pid):
            return HealthResult(False, elapsed, f"process {pid} exited ({detail})")
        if elapsed + interval_s > timeout_s:
            return HealthResult(False, elapsed, detail)
        time.sleep(interval_s)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m embedded_memory.healthwait",
                                     description="Wait until GET <url> reports a healthy memory service.")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"health URL (default {DEFAULT_URL})")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait (default 120)")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between attempts (default 2)")
    parser.add_argument("--pid", type=int, default=None, help="stop waiting once this process has exited")
    args = parser.parse_args(argv)
    print(f"waiting for {args.url} to report healthy (timeout {args.timeout:.0f} s) ...", flush=True)
    result = wait_healthy(args.url, args.timeout, args.interval, args.pid)
    if result.healthy:
        print(f"healthy after {result.elapsed_s:.1f} s: {args.url}")
        return 0
    hint = ("The service stopped: its log says why." if args.pid is not None and not _alive(args.pid) else
            "Check that the stack is up (docker compose ps; docker compose logs memory-service) or raise "
            "the timeout (HEALTH_TIMEOUT=300).")
    print(f"ERROR: {args.url} was not healthy after {result.elapsed_s:.0f} s; last answer: {result.detail}\n{hint}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
