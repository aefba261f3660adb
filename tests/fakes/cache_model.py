"""A provider-independent prompt-cache simulator for the local fake LLM servers.

The fakes in `tests.fakes` use it to report prompt-cache usage the way the real APIs do, so the
harness's caching setup and its cache-aware cost ledger can be tested and measured offline.

Token counting is deterministic: `count_tokens(obj) = ceil(len(canonical_json(obj)) / 4)`, where
`canonical_json` is `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` of the
object with every `cache_control` key removed (a cache marker never changes a count or a cache key).

Anthropic (Messages API), `PromptCache.anthropic(body)`:
- the prompt is the ordered list of blocks: each tool definition, each system block (a string
  system is one text block), each content block of each message (a string content is one text
  block);
- a breakpoint is a block carrying `cache_control`, plus, when the request has a top-level
  `cache_control` (automatic caching), the last block of the last message. The automatic breakpoint
  takes one of the 4 slots, as on the real API: more than 4 breakpoints is a 400
  (`CacheRequestError`, "A maximum of 4 blocks with cache_control may be provided. Found N.");
- the cache key of the prefix ending at block i is the sha256 of the model name and the canonical
  JSON of blocks 0..i (each tagged with where it sits: tool / system / user / assistant);
- a hit: for each breakpoint bp, the longest cached prefix ending at a position in [bp-20, bp]
  (the 20-block lookback); the request's hit is the longest over all breakpoints;
- `cache_read_input_tokens` = tokens of the hit prefix; `cache_creation_input_tokens` = tokens from
  the end of the hit to the last breakpoint, when the prefix up to the last breakpoint reaches
  `min_cacheable_tokens` (else 0: those tokens are plain input); `input_tokens` = the rest;
- afterwards every breakpoint prefix of >= `min_cacheable_tokens` tokens is stored with its TTL
  (`cache_control.ttl` "1h" -> `ttl_1h_s` = 3600 s, else `ttl_s` = 300 s); a hit refreshes its TTL;
- the write is split by TTL into `cache_creation: {ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}`
  (each segment between two breakpoints is charged at the TTL of the breakpoint that ends it).

Bedrock Converse, `PromptCache.bedrock(body)`: the same, with blocks in the order
`toolConfig.tools`, `system`, then message contents, and breakpoints given by
`{"cachePoint": {"type": "default"}}` blocks: a cache point counts 0 tokens, is not a block, and
marks the end of the block before it (at most 4, else `CacheRequestError`).

OpenAI chat completions, `PromptCache.openai(body)`: automatic prefix caching. The prompt's units
are the `tools` list (one unit, when present) and then each message. `cached_tokens` = the tokens
of the longest unit prefix seen in an earlier request of the same model (and the same
`prompt_cache_key`, when the request has one; without a key any earlier request counts), rounded
down to a multiple of 128; 0 when the prompt, or that rounded prefix, is under
`openai_min_tokens` (1024). No write charge. Every prefix of every request is remembered (TTL as
above, refreshed on a hit).

`FakeClock` is an injectable clock for TTL tests: `cache = PromptCache(clock=FakeClock())`,
`cache.clock.advance(301)`.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

LOOKBACK_BLOCKS = 20
MAX_BREAKPOINTS = 4
DEFAULT_TTL_S = 300.0
ONE_HOUR_S = 3600.0
OPENAI_CACHE_INCREMENT = 128
MAX_BREAKPOINTS_MESSAGE = "A maximum of 4 blocks with cache_control may be provided. Found {n}."
MAX_CACHE_POINTS_MESSAGE = ("The number of cachePoint blocks in the request ({n}) exceeds the maximum of 4. "
                            "Remove cachePoint blocks and try again.")


class CacheRequestError(ValueError):
    """The request breaks a caching rule; the servers answer it with a 400."""


class FakeClock:
    """A manual clock: `clock()` is the current time, `clock.advance(s)` moves it on."""

    def __init__(self, start: float = 1_000.0):
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += float(seconds)
        return self.now


def strip_cache_control(obj: Any) -> Any:
    """`obj` without any `cache_control` key (recursively through dicts and lists)."""
    if isinstance(obj, dict):
        return {k: strip_cache_control(v) for k, v in obj.items() if k != "cache_control"}
    if isinstance(obj, list):
        return [strip_cache_control(v) for v in obj]
    return obj


def canonical_json(obj: Any) -> str:
    return json.dumps(strip_cache_control(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def count_tokens(obj: Any) -> int:
    """ceil(len(canonical JSON) / 4): the fakes' deterministic token count."""
    return math.ceil(len(canonical_json(obj)) / 4)


def count_blocks(blocks: Iterable[Any]) -> int:
    """Summed token count of several blocks (what the fakes charge as output)."""
    return sum(count_tokens(b) for b in blocks)


@dataclass
class CacheUsage:
    """One request's input split. `input_tokens` is the uncached rest (Anthropic/Bedrock style)."""

    input_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0      # part of cache_write_tokens written with a 1-hour TTL
    hit_block: int = -1                 # index of the last block of the hit prefix (-1: miss)
    breakpoints: list[int] = field(default_factory=list)

    @property
    def total_input_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def cache_write_5m_tokens(self) -> int:
        return self.cache_write_tokens - self.cache_write_1h_tokens

    def anthropic_usage(self, output_tokens: int) -> dict[str, Any]:
        return {"input_tokens": self.input_tokens, "output_tokens": output_tokens,
                "cache_creation_input_tokens": self.cache_write_tokens,
                "cache_read_input_tokens": self.cache_read_tokens,
                "cache_creation": {"ephemeral_5m_input_tokens": self.cache_write_5m_tokens,
                                   "ephemeral_1h_input_tokens": self.cache_write_1h_tokens}}

    def bedrock_usage(self, output_tokens: int) -> dict[str, Any]:
        usage: dict[str, Any] = {"inputTokens": self.input_tokens, "outputTokens": output_tokens,
                                 "totalTokens": self.total_input_tokens + output_tokens,
                                 "cacheReadInputTokens": self.cache_read_tokens,
                                 "cacheWriteInputTokens": self.cache_write_tokens}
        details = [{"ttl": ttl, "inputTokens": n} for ttl, n in
                   (("1h", self.cache_write_1h_tokens), ("5m", self.cache_write_5m_tokens)) if n]
        if details:
            usage["cacheDetails"] = details
        return usage


@dataclass
class Prompt:
    """A breakpoint-cached prompt: its model, its (tag, block) list and {block index: cache marker}."""

    model: str
    blocks: list[tuple[str, Any]]
    markers: dict[int, Any]

    @property
    def tokens(self) -> int:
        return sum(count_tokens(b) for _, b in self.blocks)


@dataclass
class OpenAICacheUsage:
    prompt_tokens: int
    cached_tokens: int = 0

    def openai_usage(self, completion_tokens: int) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": self.prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": self.cached_tokens, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}


def _is_1h(marker: Any) -> bool:
    return isinstance(marker, dict) and marker.get("ttl") == "1h"


def _as_blocks(content: Any) -> list[Any]:
    """A message's / system's content as a block list (a string is one text block)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return list(content)
    return [content]


class PromptCache:
    """Thread-safe prompt cache shared by the requests of one fake server (or several)."""

    def __init__(self, *, min_cacheable_tokens: int = 1024, ttl_s: float = DEFAULT_TTL_S,
                 ttl_1h_s: float = ONE_HOUR_S, openai_min_tokens: int = 1024, lookback: int = LOOKBACK_BLOCKS,
                 clock: Callable[[], float] | None = None):
        self.min_cacheable_tokens = min_cacheable_tokens
        self.ttl_s = float(ttl_s)
        self.ttl_1h_s = float(ttl_1h_s)
        self.openai_min_tokens = openai_min_tokens
        self.lookback = lookback
        self.clock = clock or time.monotonic
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, float]] = {}            # key -> (expiry, ttl)
        self._openai: dict[str, dict[str | None, float]] = {}        # prefix key -> {cache key: expiry}
        self._requests = 0

    # --- breakpoint caches (Anthropic, Bedrock) ------------------------------------------

    def anthropic(self, body: dict[str, Any]) -> CacheUsage:
        """Usage of one Messages API request body; updates the cache. Raises CacheRequestError."""
        return self.apply(self.parse_anthropic(body))

    def bedrock(self, body: dict[str, Any], model_id: str = "") -> CacheUsage:
        """Usage of one Converse request body; updates the cache. Raises CacheRequestError."""
        return self.apply(self.parse_bedrock(body, model_id))

    @staticmethod
    def parse_anthropic(body: dict[str, Any]) -> Prompt:
        """The blocks and breakpoints of a Messages API request (no cache change). Raises CacheRequestError."""
        tagged: list[tuple[str, Any]] = []
        markers: dict[int, Any] = {}

        def add(tag: str, block: Any) -> None:
            tagged.append((tag, block))
            if isinstance(block, dict) and block.get("cache_control"):
                markers[len(tagged) - 1] = block["cache_control"]

        for tool in body.get("tools") or []:
            add("tool", tool)
        for block in _as_blocks(body.get("system")):
            add("system", block)
        for message in body.get("messages") or []:
            for block in _as_blocks(message.get("content")):
                add(str(message.get("role", "user")), block)
        explicit = len(markers)
        top = body.get("cache_control")
        if top and tagged and tagged[-1][0] not in ("tool", "system"):
            markers.setdefault(len(tagged) - 1, top)
        count = explicit + (1 if top else 0)
        if count > MAX_BREAKPOINTS:
            raise CacheRequestError(MAX_BREAKPOINTS_MESSAGE.format(n=count))
        return Prompt(str(body.get("model", "")), tagged, markers)

    @staticmethod
    def parse_bedrock(body: dict[str, Any], model_id: str = "") -> Prompt:
        """The blocks and cache points of a Converse request (no cache change). Raises CacheRequestError."""
        tagged: list[tuple[str, Any]] = []
        markers: dict[int, Any] = {}
        points = 0

        def walk(tag: str, blocks: Iterable[Any]) -> None:
            nonlocal points
            for block in blocks:
                if isinstance(block, dict) and "cachePoint" in block:
                    points += 1
                    if tagged:
                        markers[len(tagged) - 1] = block["cachePoint"] or {}
                else:
                    tagged.append((tag, block))

        walk("tool", ((body.get("toolConfig") or {}).get("tools") or []))
        walk("system", body.get("system") or [])
        for message in body.get("messages") or []:
            walk(str(message.get("role", "user")), _as_blocks(message.get("content")))
        if points > MAX_BREAKPOINTS:
            raise CacheRequestError(MAX_CACHE_POINTS_MESSAGE.format(n=points))
        return Prompt(model_id or str(body.get("modelId", "")), tagged, markers)

    def apply(self, prompt: Prompt) -> CacheUsage:
        """Look the prompt up in the cache, store its breakpoints, and return its usage split."""
        model, tagged, markers = prompt.model, prompt.blocks, prompt.markers
        tokens = [count_tokens(block) for _, block in tagged]
        prefix = list(_cumulative(tokens))
        total = prefix[-1] if prefix else 0
        bps = sorted(markers)
        if not bps:
            return CacheUsage(input_tokens=total)
        keys = _prefix_keys(model, tagged, upto=bps[-1])
        with self._lock:
            now = self.clock()
            self._sweep(now)
            hit = -1
            for bp in bps:
                for pos in range(bp, max(-1, bp - self.lookback - 1), -1):
                    entry = self._entries.get(keys[pos])
                    if entry is not None and entry[0] > now:
                        hit = max(hit, pos)
                        break
            read = prefix[hit] if hit >= 0 else 0
            last = bps[-1]
            write = write_1h = 0
            if hit < last and prefix[last] >= self.min_cacheable_tokens:
                start = hit
                for bp in bps:
                    if bp <= hit:
                        continue
                    segment = prefix[bp] - (prefix[start] if start >= 0 else 0)
                    write += segment
                    if _is_1h(markers[bp]):
                        write_1h += segment
                    start = bp
            if hit >= 0:
                _, ttl = self._entries[keys[hit]]
                self._entries[keys[hit]] = (now + ttl, ttl)
            for bp in bps:
                if prefix[bp] >= self.min_cacheable_tokens:
                    ttl = self.ttl_1h_s if _is_1h(markers[bp]) else self.ttl_s
                    old = self._entries.get(keys[bp])
                    expiry = max(now + ttl, old[0] if old else 0.0)
                    self._entries[keys[bp]] = (expiry, max(ttl, old[1] if old else 0.0))
        return CacheUsage(input_tokens=total - read - write, cache_read_tokens=read, cache_write_tokens=write,
                          cache_write_1h_tokens=write_1h, hit_block=hit, breakpoints=bps)

    # --- automatic prefix cache (OpenAI) -------------------------------------------------

    def openai(self, body: dict[str, Any]) -> OpenAICacheUsage:
        """Usage of one chat-completions request body; remembers its prefixes."""
        units: list[tuple[str, Any]] = []
        if body.get("tools"):
            units.append(("tools", body["tools"]))
        units.extend(("message", m) for m in body.get("messages") or [])
        prefix = list(_cumulative([count_tokens(u) for _, u in units]))
        total = prefix[-1] if prefix else 0
        keys = _prefix_keys(str(body.get("model", "")), units, upto=len(units) - 1)
        cache_key = body.get("prompt_cache_key")
        cached = 0
        with self._lock:
            now = self.clock()
            self._sweep(now)
            if total >= self.openai_min_tokens:
                for i in range(len(units) - 1, -1, -1):
                    seen = self._openai.get(keys[i])
                    if not seen:
                        continue
                    live = [k for k, expiry in seen.items() if expiry > now and (cache_key is None or k == cache_key)]
                    if live:
                        cached = prefix[i] // OPENAI_CACHE_INCREMENT * OPENAI_CACHE_INCREMENT
                        if cached < self.openai_min_tokens:
                            cached = 0
                        break
            for key in keys:
                self._openai.setdefault(key, {})[cache_key] = now + self.ttl_s
        return OpenAICacheUsage(prompt_tokens=total, cached_tokens=cached)

    # --- housekeeping --------------------------------------------------------------------

    def _sweep(self, now: float) -> None:
        """Drop expired entries now and then (caller holds the lock)."""
        self._requests += 1
        if self._requests % 500:
            return
        self._entries = {k: v for k, v in self._entries.items() if v[0] > now}
        for key in list(self._openai):
            live = {k: e for k, e in self._openai[key].items() if e > now}
            if live:
                self._openai[key] = live
            else:
                del self._openai[key]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._openai.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries) + len(self._openai)


def _cumulative(values: list[int]) -> Iterable[int]:
    total = 0
    for v in values:
        total += v
        yield total


def _prefix_keys(model: str, tagged: list[tuple[str, Any]], *, upto: int) -> list[str]:
    """sha256 of (model, blocks 0..i) for every i <= upto, computed incrementally."""
    digest = hashlib.sha256(json.dumps(model).encode())
    keys = []
    for tag, block in tagged[:upto + 1]:
        digest.update(b"\x1e" + tag.encode() + b"\x1f" + canonical_json(block).encode())
        keys.append(digest.copy().hexdigest())
    return keys
