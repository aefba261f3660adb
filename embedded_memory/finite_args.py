"""NaN and Infinity in MCP tool arguments: refused naming the argument, before the MCP SDK sees them.

Python's JSON parser reads NaN, Infinity and numbers too large for a double (1e400) as floats,
and the SDK then re-serialises every request with pydantic, which writes them as null: top_k=NaN
silently became the default and tags {"a": NaN} were stored as {"a": null}. The service
answers such a tools/call itself with the tool error validation.py gives for the same value on
the REST API (`search_memories: top_k: must be a finite number, got NaN`), from the body
BodyGuard (limits_http.py) has already read and parsed; every other request passes through.
"""

from __future__ import annotations

from typing import Any

from embedded_memory import validation as check
from embedded_memory.errors import ServiceError
from embedded_memory.shapes import ToolCallReply


def refusal(message: object) -> ToolCallReply | None:
    """The JSON-RPC answer for a parsed tools/call whose arguments hold a non-finite number (or a
    key that is not text), else None. BodyGuard calls it with the body it has already parsed."""
    if not isinstance(message, dict) or message.get("method") != "tools/call" or "id" not in message:
        return None
    params = message.get("params") or {}
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict):
        return None
    try:
        for name, value in arguments.items():
            check.finite(str(name), value)
            _well_formed_keys(str(name), value)
    except ServiceError as err:
        text = f"{params.get('name')}: {err}"
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": {"content": [{"type": "text", "text": text}], "isError": True}}
    return None


def _well_formed_keys(argument: str, value: Any) -> None:
    """A lone surrogate in an object key (tags) made the SDK answer "Invalid request parameters",
    naming nothing; values are checked by validation.py, keys here."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                check.utf8_size(argument, str(key))
                stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)
