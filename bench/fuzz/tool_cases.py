"""Bad (and tricky-but-valid) calls for every MCP tool, generated from the tools' input schemas.

Each argument of each tool gets the mutations of its kind while the other arguments stay valid,
so a refusal can only be about the mutated argument and must name it. The kind comes from the
schema's type plus the contract's meaning of a few names (ids, titles, cursors, ranges).
Valid-but-tricky values (a description of '{"a": 1}', a summary of "null") must be accepted and
stored verbatim. Values the SDK client cannot encode (NaN, 1e400, lone surrogates) are RawJson
tokens or surrogate strings; the runner sends those cases through raw JSON-RPC.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

ID_ARGS = ("vault_id", "memory_id", "entry_id")
CONTRACT_RANGES = {"limit": (1, 50), "top_k": (1, 100), "alpha": (0.0, 1.0)}  # DESIGN.md, memory contract
HUGE = "x" * (1 << 20)  # above every string limit the service has


class RawJson:
    """A JSON token sent verbatim (NaN, Infinity, 1e400, or a whole non-object `arguments`)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def encode(value: Any) -> str:
    """JSON text of `value` with RawJson tokens spliced in; lone surrogates become \\udXXX escapes."""
    if isinstance(value, RawJson):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{encode(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(encode(v) for v in value) + "]"
    return json.dumps(value)  # ensure_ascii: surrogates are written as escapes


def needs_raw(value: Any) -> bool:
    """True when the SDK client would change or refuse the value (NaN -> null, surrogates fail)."""
    if isinstance(value, RawJson):
        return True
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(needs_raw(k) or needs_raw(v) for k, v in value.items())
    if isinstance(value, list):
        return any(needs_raw(v) for v in value)
    return False


@dataclass(frozen=True)
class ToolCase:
    tool: str
    label: str
    args: dict[str, Any] | RawJson
    expect: str  # "reject" or "accept"
    names: str = ""  # the argument a refusal must name ("" = any error text will do)
    verbatim: bool = False  # an accept whose stored values must equal what was sent

    @property
    def raw(self) -> bool:
        return needs_raw(self.args)


# -- mutations by kind ------------------------------------------------------------------------

Mutation = tuple[str, Any, str]  # (label, value, "reject" | "accept" | "verbatim")

WRONG_TYPES_FOR_STRING: list[Mutation] = [
    ("int", 5, "reject"), ("float", 5.5, "reject"), ("true", True, "reject"), ("false", False, "reject"),
    ("list", [], "reject"), ("list-of-str", ["a"], "reject"), ("object", {}, "reject"),
    ("object-json", {"a": 1}, "reject"), ("NaN", RawJson("NaN"), "reject"),
    ("lone-surrogate", "a\ud800b", "reject"), ("huge-1MiB", HUGE, "reject"),
]
JSON_LOOKING_TEXT: list[Mutation] = [
    ("json-object-string", '{"a": 1}', "verbatim"), ("null-string", "null", "verbatim"),
    ("json-list-string", "[1, 2]", "verbatim"), ("number-string", "5", "verbatim"),
    ("true-string", "true", "verbatim"),
]


def _id_mutations() -> list[Mutation]:
    bad = ["", "   ", str(uuid.uuid4()), "' OR '1'='1", "../../etc/passwd", '{"a": 1}', "null", "a\x00b",
           "%s%n%x", "ü" * 10]
    labels = ["empty", "blank", "unknown-uuid", "sql", "path", "json-object-string", "null-string", "nul-byte",
              "format", "unicode"]
    return [(label, value, "reject") for label, value in zip(labels, bad)]


def _count_mutations(low: float, high: float) -> list[Mutation]:
    low_i, high_i = int(low), int(high)
    bad: list[Mutation] = [
        ("number-string", str(low_i + 1), "reject"), ("word-string", "abc", "reject"), ("empty-string", "", "reject"),
        ("true", True, "reject"), ("false", False, "reject"), ("list", [], "reject"), ("list-of-num", [5], "reject"),
        ("object", {}, "reject"), ("NaN", RawJson("NaN"), "reject"), ("Infinity", RawJson("Infinity"), "reject"),
        ("-Infinity", RawJson("-Infinity"), "reject"), ("1e400", RawJson("1e400"), "reject"),
        ("-1e400", RawJson("-1e400"), "reject"), ("below-min", low_i - 1, "reject"), ("negative", -1, "reject"),
        ("above-max", high_i + 1, "reject"), ("fraction", 1.5, "reject"), ("1e30", 10**30, "reject"),
        ("json-object-string", '{"a": 1}', "reject"), ("null-string", "null", "reject"),
    ]
    good: list[Mutation] = [("min", low_i, "accept"), ("max", high_i, "accept"),
                            ("whole-float", float(low_i + 1), "accept")]
    return bad + good


def _fraction_mutations() -> list[Mutation]:
    bad: list[Mutation] = [
        ("number-string", "0.5", "reject"), ("word-string", "abc", "reject"), ("true", True, "reject"),
        ("false", False, "reject"), ("list", [], "reject"), ("object", {}, "reject"),
        ("NaN", RawJson("NaN"), "reject"), ("Infinity", RawJson("Infinity"), "reject"),
        ("-Infinity", RawJson("-Infinity"), "reject"), ("1e400", RawJson("1e400"), "reject"),
        ("below-0", -0.1, "reject"), ("above-1", 1.1, "reject"), ("null-string", "null", "reject"),
        ("json-object-string", '{"a": 1}', "reject"),
    ]
    return bad + [("zero", 0, "accept"), ("zero-float", 0.0, "accept")]


def _tags_mutations() -> list[Mutation]:
    bad: list[Mutation] = [
        ("string", "x", "reject"), ("json-object-string", '{"a": 1}', "reject"), ("null-string", "null", "reject"),
        ("json-list-string", "[]", "reject"), ("int", 5, "reject"), ("float", 5.5, "reject"), ("true", True, "reject"),
        ("list", [], "reject"), ("list-of-str", ["a"], "reject"), ("NaN-value", {"a": RawJson("NaN")}, "reject"),
        ("Infinity-value", {"a": RawJson("Infinity")}, "reject"), ("1e400-value", {"a": RawJson("1e400")}, "reject"),
        ("huge", {"k": "x" * 100_000}, "reject"), ("surrogate-key", {"\ud800": 1}, "reject"),
        ("surrogate-value", {"a": "\ud800"}, "reject"),
    ]
    good: list[Mutation] = [("empty-object", {}, "verbatim"),
                            ("nested", {"nested": {"list": [1, 2.5, None, True], "s": "null"}}, "verbatim"),
                            ("json-string-value", {"json": '{"a": 1}'}, "verbatim")]
    return bad + good


ENTRY = {"raw_entry": "fuzz entry text", "summary": "fuzz summary", "tags": {"k": "v"}}


def _entries_mutations() -> list[Mutation]:
    """add_entries' list: every bad item must be refused naming `entries` and store nothing."""
    bad: list[Mutation] = [
        ("string", "x", "reject"), ("json-list-string", '[{"raw_entry": "a", "summary": ""}]', "reject"),
        ("object", dict(ENTRY), "reject"), ("int", 5, "reject"), ("empty-list", [], "reject"),
        ("list-of-str", ["a"], "reject"), ("list-of-null", [None], "reject"), ("nested-list", [[ENTRY]], "reject"),
        ("item-no-raw", [{"summary": "s"}], "reject"), ("item-no-summary", [{"raw_entry": "r"}], "reject"),
        ("item-empty-raw", [ENTRY, {**ENTRY, "raw_entry": ""}], "reject"),
        ("item-raw-int", [{**ENTRY, "raw_entry": 5}], "reject"),
        ("item-raw-surrogate", [{**ENTRY, "raw_entry": "a\ud800b"}], "reject"),
        ("item-raw-over-limit", [{**ENTRY, "raw_entry": "y" * (64 * 1024 + 1)}], "reject"),
        ("item-unknown-key", [{**ENTRY, "vault_id": "x"}], "reject"),
        ("item-tags-string", [{**ENTRY, "tags": "x"}], "reject"),
        ("item-tags-NaN", [{**ENTRY, "tags": {"a": RawJson("NaN")}}], "reject"),
        ("over-count", [ENTRY] * 1001, "reject"),
    ]
    good: list[Mutation] = [("one", [ENTRY], "verbatim"),
                            ("json-looking", [{"raw_entry": '{"a": 1}', "summary": "null", "tags": {}},
                                              {"raw_entry": "[1, 2]", "summary": "", "tags": {"j": '{"a": 1}'}}],
                             "verbatim")]
    return bad + good


def _kind_mutations(kind: str, arg: str, low_high: tuple[float, float] | None) -> list[Mutation]:
    if kind == "entries":
        return _entries_mutations()
    if kind == "id":
        return _id_mutations()
    if kind == "title":
        return [(label, value, "reject") for label, value in (
            ("empty", ""), ("blank", " "), ("space", "a b"), ("underscore", "a_b"), ("51-chars", "a" * 51),
            ("unicode", "café"), ("json-object-string", '{"a": 1}'), ("newline", "ab\ncd"))]
    if kind == "label":
        return [("empty", "", "reject"), ("blank", "  ", "reject"), ("65-chars", "N" * 65, "reject"),
                ("json-object-string", '{"a": 1}', "verbatim"), ("null-string", "null", "verbatim")]
    if kind == "prompt_type":
        return [("empty", "", "reject"), ("unknown", "NOTES-x", "reject"), ("json-object-string", '{"a": 1}', "reject"),
                ("null-string", "null", "reject"), ("path", "../chat", "reject"), ("upper", "CHAT", "accept")]
    if kind == "text":
        over = {"raw_entry": 64 * 1024 + 1, "query": 8 * 1024 + 1}.get(arg)
        extra = [("over-limit", "y" * over, "reject")] if over else []
        keep = "accept" if arg == "query" else "verbatim"
        return [("empty", "", "reject"), ("blank", "   ", "reject"), *extra,
                *[(label, value, keep) for label, value, _ in JSON_LOOKING_TEXT],
                ("unicode", "日本語 🎉 ñ", keep), ("nul-byte", "a\x00b", keep)]
    if kind == "text_or_empty":
        return [("empty", "", "verbatim"), ("blank", "   ", "verbatim"), *JSON_LOOKING_TEXT,
                ("over-limit", "s" * (8 * 1024 + 1), "reject")]
    if kind == "optional_text":
        return [("empty", "", "verbatim"), *JSON_LOOKING_TEXT, ("json-list-of-str", '["a"]', "verbatim"),
                ("501-chars", "d" * 501, "reject")]
    if kind == "cursor":
        bad = ["null", '{"a": 1}', "2024-01-01", "2024-01-01T00:00:00", "2024-13-45T99:00:00Z", "yesterday", "5",
               "true"]
        labels = ["null-string", "json-object-string", "date-only", "no-timezone", "out-of-range", "word",
                  "number-string", "true-string"]
        return [*[(label, value, "reject") for label, value in zip(labels, bad)],
                ("empty", "", "accept"), ("utc", "2024-01-01T00:00:00Z", "accept"),
                ("nanoseconds-offset", "2030-01-01T00:00:00.123456789+02:00", "accept")]
    if kind == "count":
        assert low_high is not None
        return _count_mutations(*low_high)
    if kind == "fraction":
        return _fraction_mutations()
    if kind == "object":
        return _tags_mutations()
    return []


STRING_KINDS = frozenset(("id", "title", "label", "prompt_type", "text", "text_or_empty", "optional_text", "cursor"))


def kind_of(tool: str, arg: str, prop: dict[str, Any]) -> str:
    """The argument's kind: the schema's type, refined by what the contract says the name means."""
    if arg in ID_ARGS:
        return "id"
    named = {"title": "title", "summary": "text_or_empty", "description": "optional_text", "before": "cursor",
             "after": "cursor", "alpha": "fraction"}
    if arg == "memory_type":
        return "prompt_type" if tool == "get_default_prompts" else "label"
    if arg in named:
        return named[arg]
    if arg == "entries":
        return "entries"
    kind = prop.get("type")
    if kind in ("number", "integer"):
        return "count"
    if kind == "object":
        return "object"
    return "text"


def value_range(arg: str, prop: dict[str, Any]) -> tuple[float, float] | None:
    if "minimum" in prop and "maximum" in prop:
        return float(prop["minimum"]), float(prop["maximum"])
    return CONTRACT_RANGES.get(arg)


# -- the cases ------------------------------------------------------------------------------------

BASE_TEXT = {"raw_entry": "fuzz entry text", "content": "fuzz context text", "summary": "fuzz summary",
             "query": "fuzz", "description": "fuzz description"}


class CaseBuilder:
    """Builds one tool's calls: valid base arguments from the ids in `ids`, fresh titles per call."""

    def __init__(self, ids: dict[str, str], run_token: str):
        self.ids = ids
        self._titles = (f"fz{run_token}-{n}" for n in itertools.count())

    def base(self, tool: str, schema: dict[str, Any]) -> dict[str, Any]:
        """A valid call: required arguments plus the optional ones with a harmless value."""
        args: dict[str, Any] = {}
        for arg, prop in schema.get("properties", {}).items():
            value = self._base_value(tool, arg, prop)
            if value is not None:
                args[arg] = value
        return args

    def _base_value(self, tool: str, arg: str, prop: dict[str, Any]) -> Any:
        if arg in ID_ARGS:
            return self.ids[arg]
        if arg == "title":
            return next(self._titles)
        if arg == "memory_type":
            return "chat" if tool == "get_default_prompts" else "NOTES"
        if arg == "tags":
            return {"k": "v"}
        if arg == "entries":
            return [dict(ENTRY)]
        if arg in ("limit", "top_k"):
            return 5
        if arg in ("before", "after", "alpha"):
            return None  # optional and changes the result: only set when it is the mutated argument
        return BASE_TEXT.get(arg, "fuzz" if prop.get("type") == "string" else None)

    def cases(self, tool: str, schema: dict[str, Any]) -> Iterator[ToolCase]:
        properties, required = schema.get("properties", {}), set(schema.get("required", []))
        yield ToolCase(tool, f"{tool}.control", self.base(tool, schema), "accept")
        for arg in sorted(required):
            args = self.base(tool, schema)
            args.pop(arg, None)
            yield ToolCase(tool, f"{tool}.{arg}=missing", args, "reject", names=arg)
        for arg, prop in properties.items():
            kind = kind_of(tool, arg, prop)
            mutations = list(_kind_mutations(kind, arg, value_range(arg, prop)))
            if kind in STRING_KINDS:
                mutations += WRONG_TYPES_FOR_STRING
            mutations.append(("null", None, "reject" if arg in required else "accept"))
            for label, value, expect in mutations:
                yield self._mutated(tool, schema, arg, label, value, expect)
            yield from self._scope_cases(tool, schema, arg)

    def _mutated(self, tool: str, schema: dict[str, Any], arg: str, label: str, value: Any,
                 expect: str) -> ToolCase:
        args = self.base(tool, schema)
        args[arg] = value
        return ToolCase(tool, f"{tool}.{arg}={label}", args, "reject" if expect == "reject" else "accept",
                        names=arg, verbatim=expect == "verbatim")

    def _scope_cases(self, tool: str, schema: dict[str, Any], arg: str) -> Iterator[ToolCase]:
        """A real id from the wrong scope: another vault's id with this memory, another memory's entry."""
        props = schema.get("properties", {})
        if arg == "vault_id" and "memory_id" in props:
            args = {**self.base(tool, schema), "vault_id": self.ids["other_vault_id"]}
            yield ToolCase(tool, f"{tool}.vault_id=other-vault", args, "reject", names="memory_id")
        if arg == "memory_id" and "entry_id" in props:
            args = {**self.base(tool, schema), "memory_id": self.ids["other_memory_id"]}
            yield ToolCase(tool, f"{tool}.memory_id=other-memory", args, "reject", names="entry_id")


def protocol_cases() -> list[ToolCase]:
    """Calls that are wrong as a whole: unknown tool names, `arguments` that are not an object."""
    out = [ToolCase(name, f"unknown-tool={label}", {}, "reject", names=name.strip())
           for label, name in (("nope", "nope"), ("empty", ""), ("upper-case", "CREATE_VAULT"),
                               ("trailing-space", "list_vaults "), ("path", "../list_vaults"))]
    for label, raw in (("list", "[1, 2]"), ("string", '"x"'), ("number", "5"), ("true", "true")):
        out.append(ToolCase("add_entry", f"add_entry.arguments={label}", RawJson(raw), "reject"))
    return out


def all_cases(tools: list[tuple[str, dict[str, Any]]], ids: dict[str, str], run_token: str) -> list[ToolCase]:
    """Every case for the listed (name, inputSchema) tools, in a stable order."""
    builder = CaseBuilder(ids, run_token)
    cases = [case for name, schema in tools for case in builder.cases(name, schema)]
    return cases + protocol_cases()
