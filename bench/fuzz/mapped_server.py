"""A tiny stdio MCP memory server for the mapping attacks (stdlib only, so it starts in ~50 ms).

It speaks just enough MCP (initialize, tools/list, tools/call) for a mapping with `save_note` and
`find_notes`, keeps notes in the file named by $NOTES_PATH (default ./notes.jsonl, its cwd being
the case's scope folder; `--notes PATH` wins), and misbehaves on request ($FUZZ_MODE):
  normal  answer everything
  hang    read requests, never answer initialize (a server stuck at start)
  huge    every search returns one hit of $FUZZ_HUGE_MB MiB (default 50)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

TOOLS = [{"name": name, "description": name, "inputSchema": {"type": "object", "properties": props}}
         for name, props in (("save_note", {"text": {"type": "string"}}),
                             ("find_notes", {"query": {"type": "string"}, "limit": {"type": "integer"}}))]


def reply(request_id: object, result: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def call(name: str, args: dict, notes: Path, mode: str) -> dict:
    if name == "save_note":
        with notes.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"text": args.get("text", "")}) + "\n")
        return text('{"saved": true}')
    if mode == "huge":
        blob = "x" * (int(os.environ.get("FUZZ_HUGE_MB", "50")) << 20)
        return text(json.dumps({"results": [{"id": "n1", "text": blob}]}))
    words = set(str(args.get("query", "")).lower().split())
    rows = [json.loads(line) for line in notes.read_text(encoding="utf-8").splitlines()] if notes.exists() else []
    hits = [{"id": f"n{i}", "text": r["text"]} for i, r in enumerate(rows) if words & set(r["text"].lower().split())]
    return text(json.dumps({"results": hits[: int(args.get("limit") or 10)]}))


def main() -> None:
    mode = os.environ.get("FUZZ_MODE", "normal")
    notes = Path(sys.argv[sys.argv.index("--notes") + 1] if "--notes" in sys.argv else
                 os.environ.get("NOTES_PATH", "notes.jsonl"))
    for raw in sys.stdin:
        message = json.loads(raw)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None or mode == "hang":
            continue  # notifications; a hanging server answers nothing at all
        if method == "initialize":
            reply(request_id, {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                               "serverInfo": {"name": "fuzz-notes", "version": "0"}})
        elif method == "tools/list":
            reply(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            params = message.get("params") or {}
            reply(request_id, call(params.get("name", ""), params.get("arguments") or {}, notes, mode))
        else:
            reply(request_id, {})


if __name__ == "__main__":
    main()
