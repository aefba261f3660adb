"""A third-party-style MCP memory server for the tests: notes kept apart by a `user_id` argument
(a namespace), or in notebooks it creates (a container whose id is then passed as user_id).

It does not import the harness: it is what a user's own memory server might look like, so the
tests can check that a mapping file of the user's (scope kind "namespace") drives it. Run with
`python namespace_notes_server.py` (stdio); notes live in memory for the process's lifetime.
"""

from __future__ import annotations

import json
import re

from mcp.server.fastmcp import FastMCP

server = FastMCP("namespace-notes")
NOTES: dict[str, list[dict]] = {}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


NOTEBOOKS: list[str] = []


@server.tool()
def create_notebook(title: str) -> str:
    """A new, empty notebook; its id is what save_note / find_notes take as user_id."""
    NOTEBOOKS.append(title)
    return json.dumps({"notebook": {"id": f"nb-{len(NOTEBOOKS)}", "title": title}})


@server.tool()
def save_note(user_id: str, text: str) -> str:
    """Store one note for one user."""
    notes = NOTES.setdefault(user_id, [])
    notes.append({"id": f"n{len(notes) + 1}", "text": text})
    return json.dumps({"saved": notes[-1]["id"]})


@server.tool()
def find_notes(user_id: str, query: str, limit: int = 5) -> str:
    """The user's notes sharing the most words with the query, best first, with a score."""
    asked = _words(query)
    scored = [(len(asked & _words(n["text"])) / (len(asked) or 1), i, n) for i, n in enumerate(NOTES.get(user_id, []))]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:limit]
    return json.dumps({"results": [{"id": n["id"], "text": n["text"], "score": round(s, 4)} for s, _, n in best]})


if __name__ == "__main__":
    server.run("stdio")
