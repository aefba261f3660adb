"""Attack the embedded memory service the way a careless client or a hostile local process would.

    .venv/bin/python bench/fuzz_service.py [--quick] [--url URL --api-key KEY --pid PID] [--out FILE]
    make fuzz                      # the full set; make fuzz FUZZ_ARGS=--quick for the CI size

Fifteen groups (issue 12; mappings, adapters, rundirs issue 26; symlinks, batches issue 36; beam, deep, dirlinks, viewfiles,
plugins issue 42),
per case as ok / clean / unclear / wrong / 5xx / crash / accepted / lost (bench/fuzz/outcome.py says what
each means), with the service's RSS before and after the group:
  tools     bad arguments for all 13 MCP tools, generated from their schemas (real SDK client)
  http      raw HTTP abuse of /mcp, /v0/search, /v0/health; huge bodies, session and connection floods
  writers   16 concurrent writers on one memory and across memories; every acked write must survive
  kill9     SIGKILL mid-write and mid-index, restart on the same file; every acked write must survive
  datasets  broken LongMemEval files through the harness's loader (no service)
  mappings  a tool mapping's server: scope paths out of the run directory, a hang at start, a 50 MiB result
  adapters  outside agents (subprocess, HTTP) that break the pairing, dribble, flood, leak children or secrets
  rundirs   score / replay / judge-online on damaged run directories (cut-off lines, bad manifest, ...)
  symlinks  report / score / a resumed run on a run directory seeded with <file> -> victim links
  dirlinks  report / oracle / score / baselines / a resumed run on a run directory whose plots/, official/,
            oracle/, scores/, baselines/ or data/ is a link to another folder (issue 42): refused, the folder untouched
  batches   damaged batch journals and provider results files against the batch hub: nothing lost,
            nothing paid twice, the bad line named; a journal that lost its own batch's row (issue 42) finds
            the batch at the provider by its metadata, or refuses in one line
  beam      BEAM exports with duplicate conversation ids or hostile values (issue 42): one line naming
            the row, and the plan's question count is what the run's cases hold
  deep      run files and BEAM files nested 100,000 deep (issue 42) through report / compare / oracle /
            score, the run browser and the BEAM loader: one line naming the file, never a traceback
  viewfiles `view` under changing or odd files (issue 42): results rewritten in place, symlink loops, odd values,
            a nested `questions` run, bundles into dangling links, bad --host / --port, an oversized line
  plugins   suite plugins that exit, interrupt, raise, give the wrong object or clash (issue 42): built-in kinds
            still work, the plugin's kind is one line naming its entry point
Without --url the service is launched on a temp database (with a random API key, so the auth
cases run). The kill9 group always launches its own. The script reports; it does not judge:
it exits 0 after a completed run, whatever the counts (tests/memory/test_fuzz_service.py judges).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fuzz import (  # noqa: E402
    adapter_attack,
    batch_attack,
    beam_attack,
    dataset_attack,
    deep_attack,
    dirlink_attack,
    http_attack,
    kill9,
    mapping_attack,
    plugin_attack,
    rundir_attack,
    symlink_attack,
    tool_attack,
    view_attack,
    writers,
)
from bench.fuzz.outcome import Tally  # noqa: E402
from bench.fuzz.report import findings, short_table, table, write_json  # noqa: E402
from bench.fuzz.target import ServiceHandle  # noqa: E402

GROUPS = ("tools", "http", "writers", "kill9", "datasets", "mappings", "adapters", "rundirs", "symlinks", "batches", "beam",
          "deep", "dirlinks", "viewfiles", "plugins")
HARNESS_GROUPS = {"mappings": mapping_attack.run, "adapters": adapter_attack.run, "rundirs": rundir_attack.run,
                  "symlinks": symlink_attack.run, "batches": batch_attack.run,
                  "beam": beam_attack.run, "deep": deep_attack.run,
                  "dirlinks": dirlink_attack.run, "viewfiles": view_attack.run,
                  "plugins": plugin_attack.run}
SERVICE_GROUPS = ("tools", "http", "writers")


@dataclass(frozen=True)
class Sizes:
    http: http_attack.HttpSizes
    kill: kill9.KillSizes
    writers: int = 16
    entries_per_writer: int = 100


FULL = Sizes(http=http_attack.HttpSizes(), kill=kill9.KillSizes())
QUICK = Sizes(http=http_attack.QUICK, kill=kill9.QUICK, entries_per_writer=5)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="CI sizes: small floods, 2 kill runs, fewer damaged run "
                                                            "directories")
    parser.add_argument("--groups", default=",".join(GROUPS), help=f"comma-separated subset of {', '.join(GROUPS)}")
    parser.add_argument("--url", default=None, help="attack this running service (http://host:port[/mcp]) "
                                                    "instead of launching one")
    parser.add_argument("--api-key", default=None, help="its key (default $MEMORY_API_KEY); launched: random")
    parser.add_argument("--pid", type=int, default=None, help="with --url: its process id, to read its RSS")
    parser.add_argument("--embedder", default="static", choices=("static", "minilm", "none"),
                        help="embedder of the launched services (default static)")
    parser.add_argument("--timeout-s", type=float, default=30.0, help="per call; longer counts as a hang")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "fuzz" / "fuzz.json", help="the JSON report")
    args = parser.parse_args(argv)
    args.groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = sorted(set(args.groups) - set(GROUPS))
    if unknown:
        parser.error(f"--groups: unknown group {', '.join(unknown)}; choose from {', '.join(GROUPS)}")
    return args


async def attack_service(target: ServiceHandle, args: argparse.Namespace, sizes: Sizes) -> list[Tally]:
    tallies = []
    for group in (g for g in SERVICE_GROUPS if g in args.groups):
        tally = Tally(group).begin(target.pid)
        if group == "tools":
            await tool_attack.run(target, tally, timeout_s=args.timeout_s)
        elif group == "http":
            await http_attack.run(target, tally, sizes.http, timeout_s=args.timeout_s)
        else:
            await writers.run(target, tally, writers=sizes.writers, entries=sizes.entries_per_writer)
        tallies.append(tally.end(target.pid))
        print(table([tally]).splitlines()[-1], flush=True)
    return tallies


def run(args: argparse.Namespace, workdir: Path) -> tuple[list[Tally], dict[str, object]]:
    sizes = QUICK if args.quick else FULL
    tallies: list[Tally] = []
    header: dict[str, object] = {"mode": "quick" if args.quick else "full", "groups_run": args.groups}
    if any(g in args.groups for g in SERVICE_GROUPS):
        if args.url:
            target = ServiceHandle.attach(args.url, api_key=args.api_key, pid=args.pid)
        else:
            target = ServiceHandle.launch(workdir / "fuzz.sqlite", workdir / "service.log", embedder=args.embedder,
                                          api_key=args.api_key)
        header["target"] = {"url": target.base_url, "launched": target.launched is not None,
                            "embedder": args.embedder if target.launched else None, "auth": bool(target.api_key)}
        try:
            tallies += asyncio.run(attack_service(target, args, sizes))
        finally:
            header["service_exit_code"] = target.stop()  # SIGTERM: a clean stop exits 0
            header["service_restarts"] = target.restarts
    if "kill9" in args.groups:
        tally = Tally("kill9")
        tallies.append(asyncio.run(kill9.run(workdir, tally, sizes.kill, embedder=args.embedder)))
        print(table([tally]).splitlines()[-1], flush=True)
    if "datasets" in args.groups:
        tally = Tally("datasets").begin(None)
        tallies.append(dataset_attack.run(workdir, tally).end(None))
        print(table([tally]).splitlines()[-1], flush=True)
    for group, attack in HARNESS_GROUPS.items():  # the harness itself under attack (no shared service)
        if group in args.groups:
            tally = Tally(group).begin(None)
            tallies.append(attack(workdir, tally, quick=args.quick).end(None))
            print(table([tally]).splitlines()[-1], flush=True)
    return tallies, header


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for noisy in ("mcp", "httpx", "asyncio"):  # the attacks break sessions on purpose; the counts say how
        logging.getLogger(noisy).setLevel(logging.CRITICAL)
    started = time.perf_counter()
    print(table([]).splitlines()[0], flush=True)
    with tempfile.TemporaryDirectory(prefix="fuzz-service-") as tmp:
        tallies, header = run(args, Path(tmp))
    header["seconds"] = round(time.perf_counter() - started, 1)
    print(f"\n{table(tallies)}\n\n{short_table(tallies)}\n\n{findings(tallies)}")
    write_json(args.out, header, tallies)
    print(f"\nwrote {args.out} ({header['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
