"""Speed of the embedded memory service through MCP over HTTP, one persistent session.

    .venv/bin/python bench/bench_memory.py [--embedder static|minilm|none] [--quick] [--json FILE]

Grows one memory to each size in --sizes (default 500, then 5,000) with LongMemEval-like entries
(50-150 words, a 1-2 sentence summary), one add_entry at a time like an agent, and reports:
ingest rate (entries/s from the first add_entry until await_consistency returns, embedding
included) and search_memories latency p50/p95 (distinct queries, top_k 10, client-side).
Targets: a 500-entry memory ingested and searchable in <= 15 s; search p95 <= 50 ms at 5,000.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from embedded_memory.launcher import EmbeddedMemoryService  # noqa: E402
from embedded_memory.settings import ServiceSettings  # noqa: E402

NAMES = ["Priya", "Marcus", "Luna", "Diego", "Aiko", "Fatima", "Oliver", "Chen", "Sofia", "Kwame", "Ingrid", "Ravi"]
PLACES = ["Denver", "Lisbon", "the Brooklyn Museum", "MoMA", "Chautauqua trail", "Zara", "the farmers market",
          "Kyoto", "the climbing gym", "Trader Joe's", "the Met", "Lake Tahoe", "the office", "Barcelona"]
THINGS = ["a road bike", "hiking boots", "a sourdough starter", "a museum membership", "a Kindle", "running shoes",
          "a yoga mat", "a cast iron pan", "noise-cancelling headphones", "a winter coat", "a hamster cage",
          "concert tickets", "a used Honda Civic", "a standing desk", "a chess set", "watercolor paints"]
VERBS = ["bought", "returned", "picked up", "ordered", "borrowed", "sold", "repaired", "gave away", "tried out"]
TOPICS = ["marathon training", "a kitchen renovation", "learning Spanish", "a job interview", "tax filing",
          "planning a wedding", "adopting a cat", "a photography class", "meal prepping", "a garden project"]
FILLER = ["I have been thinking about it a lot lately.", "Do you have any suggestions for me?",
          "It was honestly better than I expected.", "My schedule has been pretty packed this month.",
          "I want to make sure I do not forget the details.", "That reminds me of something my sister said.",
          "I am trying to keep a better budget this year.", "Let me know if you need more context."]


def sentence(rng: random.Random) -> str:
    date = f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    choices = [
        f"On {date} I {rng.choice(VERBS)} {rng.choice(THINGS)} at {rng.choice(PLACES)} with {rng.choice(NAMES)}.",
        f"It cost about ${rng.randint(5, 900)} and took {rng.randint(10, 180)} minutes.",
        f"{rng.choice(NAMES)} recommended I look into {rng.choice(TOPICS)} before {date}.",
        f"I have been working on {rng.choice(TOPICS)} for {rng.randint(2, 30)} weeks now.",
        f"My personal best was {rng.randint(20, 59)}:{rng.randint(0, 59):02d} at {rng.choice(PLACES)}.",
        rng.choice(FILLER),
    ]
    return rng.choice(choices)


def entry(rng: random.Random, i: int) -> tuple[str, str]:
    """(raw_entry, summary): 50-150 words of chat, and a past-tense summary of its first sentences."""
    sentences, words = [], 0
    target = rng.randint(50, 150)
    while words < target:
        s = sentence(rng)
        sentences.append(s)
        words += len(s.split())
    role = "USER" if i % 2 == 0 else "ASSISTANT"
    raw = f"[session {i // 20} | 2023-{(i // 400) % 12 + 1:02d}-01] {role}: " + " ".join(sentences)
    summary = f"The {role.lower()} said: " + " ".join(sentences[:2])
    return raw, summary[:512]


def query(rng: random.Random) -> str:
    forms = [f"When did I buy {rng.choice(THINGS)}?", f"What did {rng.choice(NAMES)} recommend about {rng.choice(TOPICS)}?",
             f"How much did {rng.choice(THINGS)} cost at {rng.choice(PLACES)}?",
             f"Who went to {rng.choice(PLACES)} with me in 2023?", f"What is my personal best at {rng.choice(PLACES)}?"]
    return f"{rng.choice(forms)} ({rng.randint(0, 10**6)})"  # distinct text: no query-cache hits


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


async def run(args: argparse.Namespace, mcp_url: str, headers: dict[str, str]) -> list[dict]:
    from mcp import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    rng = random.Random(args.seed)
    results = []
    async with create_mcp_http_client(headers=headers) as http, \
            streamable_http_client(mcp_url, http_client=http) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()

        async def call(tool: str, **kw) -> str:
            result = await session.call_tool(tool, kw)
            text = result.content[0].text
            if result.isError:
                raise RuntimeError(f"{tool}: {text}")
            return text

        vault_id = json.loads(await call("create_vault", title="bench"))["vaultId"]
        memory_id = json.loads(await call("create_memory_in_vault", vault_id=vault_id, title="bench-memory",
                                          memory_type="NOTES"))["memoryId"]
        await call("await_consistency", memory_id=memory_id)
        count = 0
        for size in args.sizes:
            n = size - count
            batch = [entry(rng, count + i) for i in range(n)]
            started = time.perf_counter()
            for raw, summary in batch:
                await call("add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry=raw, summary=summary,
                           tags={"bench": "1"})
            calls_done = time.perf_counter() - started
            await call("await_consistency", memory_id=memory_id)
            ingest_s = time.perf_counter() - started
            count = size
            for _ in range(10):  # warm up: loads the memory's vectors, the FTS pages, the model
                await call("search_memories", memory_id=memory_id, query=query(rng), top_k=10)
            latencies = []
            for _ in range(args.queries):
                q = query(rng)
                t0 = time.perf_counter()
                hits = json.loads(await call("search_memories", memory_id=memory_id, query=q, top_k=10))
                latencies.append((time.perf_counter() - t0) * 1000)
                assert hits["count"] == 10
            row = {"embedder": args.embedder, "entries": size, "added": n, "add_calls_s": round(calls_done, 2),
                   "ingest_searchable_s": round(ingest_s, 2), "ingest_entries_per_s": round(n / ingest_s, 1),
                   "search_p50_ms": round(statistics.median(latencies), 2), "search_p95_ms": round(pct(latencies, 95), 2),
                   "search_max_ms": round(max(latencies), 2), "queries": len(latencies)}
            results.append(row)
            print(json.dumps(row), flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="static", choices=["static", "minilm", "none", "ollama", "openai"])
    parser.add_argument("--quick", action="store_true", help="200 and 1,000 entries, 50 queries")
    parser.add_argument("--sizes", default="500,5000", help="comma-separated memory sizes to measure at")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.queries = "200,1000", 50
    args.sizes = sorted(int(s) for s in args.sizes.split(","))
    alpha = 0.0 if args.embedder == "none" else 0.6
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        settings = ServiceSettings(port=0, db_path=f"{tmp}/bench.sqlite", embedder=args.embedder, alpha=alpha)
        started = time.perf_counter()
        with EmbeddedMemoryService(settings, log_path=f"{tmp}/service.log") as svc:
            print(json.dumps({"embedder": args.embedder, "startup_s": round(time.perf_counter() - started, 2)}), flush=True)
            results = asyncio.run(run(args, svc.mcp_url, svc.auth_headers))
    print(f"\n{'embedder':<8} {'entries':>7} {'ingest s':>9} {'entries/s':>9} {'p50 ms':>7} {'p95 ms':>7}")
    for r in results:
        print(f"{r['embedder']:<8} {r['entries']:>7} {r['ingest_searchable_s']:>9} {r['ingest_entries_per_s']:>9} "
              f"{r['search_p50_ms']:>7} {r['search_p95_ms']:>7}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
