"""Tool mappings: how the harness drives an MCP memory server that does not speak Mycelian's contract.

A mapping is a small TOML file (presets ship in `benchmarker/memory/presets/`; users write their
own and point `[memory].mapping` at it). It names the tool that writes one dataset message, the
tool that searches and where ids, texts and scores sit in its result, how one case's memory is
kept apart from the others (`[scope]`), and what the server lacks. Templates are TOML values whose
strings hold `{placeholders}`; a string that is exactly one placeholder takes the value's own type
(`"{top_k}"` becomes the integer 10), anything else is text substitution.

    mapping = load_mapping("mcp-server-memory")
    args = render(mapping.write.arguments, {"text": "...", "session_id": "s1", ...})
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from benchmarker.errors import ConfigError
from benchmarker.log.lines import Json

PRESETS_PACKAGE = "benchmarker.memory.presets"
MYCELIAN = "mycelian"
# What each template may mention; a mapping naming anything else is refused when it loads.
WRITE_PLACEHOLDERS = ("text", "summary", "session_id", "session_date", "turn_index", "role", "case_id", "scope")
SEARCH_PLACEHOLDERS = ("query", "top_k", "scope")
SCOPE_PLACEHOLDERS = ("scope",)
ENV_PLACEHOLDERS = ("scope_dir",)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PATH_PART = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)?((?:\[\*\])*)$")


class _Spec(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class ServerSpec(_Spec):
    """How a user starts the server; `[memory]` keys override each of these."""

    transport: Literal["stdio", "streamable_http"] = "stdio"
    command: str = ""
    args: tuple[str, ...] = Field(default=(), strict=False)
    env: dict[str, str] = Field(default_factory=dict)
    url: str = ""
    install_hint: str = ""   # what to install when the command is missing


class ScopeSpec(_Spec):
    """How one case's memory is kept apart: a fresh server process (with its own `{scope_dir}`)
    per case; one shared server and an argument (`argument`) every call carries; or a container
    the server creates per case (`create_tool` with `create_arguments`, its id read at `id`, then
    passed as `{scope}`)."""

    kind: Literal["process", "namespace", "container"] = "process"
    argument: str = ""
    create_tool: str = ""
    create_arguments: dict[str, Any] = Field(default_factory=dict)
    id: str = ""   # path to the new container's id in the create tool's JSON result ("" = the text itself)

    @model_validator(mode="after")
    def _argument(self) -> ScopeSpec:
        if self.kind == "namespace" and not self.argument:
            raise ValueError('a namespace scope names the argument every call carries, e.g. argument = "user_id"')
        if self.kind == "container" and not self.create_tool:
            raise ValueError('a container scope names the tool that creates one, e.g. create_tool = "create_notebook"')
        return self


class WriteSpec(_Spec):
    """The tool that stores one dataset message, and where its text sits in the arguments (so a
    search hit can be traced back to the message that wrote it)."""

    tool: str = Field(min_length=1)
    arguments: dict[str, Any]
    text_paths: tuple[str, ...] = Field(default=(), strict=False)
    # Other tools the memory agent may write with, and where their text sits (tool -> paths).
    other_tools: dict[str, list[str]] = Field(default_factory=dict)

    def text_paths_of(self, tool: str) -> tuple[str, ...]:
        return self.text_paths if tool == self.tool else tuple(self.other_tools.get(tool, ()))


class SearchSpec(_Spec):
    """The tool that searches, and how to read its result.

    result = "json": `hits` is the path to the list of hits; `text`, `id`, `score` are paths
    inside one hit ("" when the server has none). result = "lines": every non-empty line is a hit
    (`line_prefix` stripped); a reply in `empty` means no hits. query = "keywords" sends each
    content word of the question as its own query and ranks hits by how many words found them
    (for servers that match the whole query as one substring).
    """

    tool: str = Field(min_length=1)
    arguments: dict[str, Any]
    query: Literal["question", "keywords"] = "question"
    max_keywords: int = Field(8, ge=1, le=50)
    result: Literal["json", "lines"] = "json"
    hits: str = ""
    text: str = ""
    id: str = ""
    score: str = ""
    line_prefix: str = ""
    empty: tuple[str, ...] = Field(default=(), strict=False)


class ConsistencySpec(_Spec):
    """A tool that blocks until writes are searchable; "" when writes are searchable at once."""

    tool: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)


class AgentSpec(_Spec):
    """What the memory agent gets: a prompt file (in `prompts/`, or beside a user mapping) and the
    server tools it may call (discovered live; these names select from them)."""

    prompt: str = "memory_agent_mapped.txt"
    tools: tuple[str, ...] = Field(default=(), strict=False)
    guidance: str = ""   # server-specific advice, substituted into the prompt's {guidance}


class ToolMapping(_Spec):
    name: str = Field(min_length=1)
    description: str = ""
    homepage: str = ""
    driver: Literal["mycelian", "mapped"] = "mapped"
    server: ServerSpec = ServerSpec()
    scope: ScopeSpec = ScopeSpec()
    write: WriteSpec | None = None
    search: SearchSpec | None = None
    consistency: ConsistencySpec = ConsistencySpec()
    agent: AgentSpec = AgentSpec()
    lacks: tuple[str, ...] = Field(default=(), strict=False)  # what the report should say it cannot do
    source: str = ""  # set by load_mapping: the file it came from

    @model_validator(mode="after")
    def _mapped_needs_tools(self) -> ToolMapping:
        if self.driver == "mapped" and (self.write is None or self.search is None):
            raise ValueError("a mapped server needs a [write] and a [search] table")
        return self

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", value):
            raise ValueError("use letters, digits, '.', '_' or '-'")
        return value

    @property
    def is_mycelian(self) -> bool:
        return self.driver == MYCELIAN

    def write_tools(self) -> tuple[str, ...]:
        """Tools whose calls store memory (the agent's, traced back to turns by their text)."""
        return (self.write.tool, *self.write.other_tools) if self.write else ("add_entry",)

    def required_tools(self) -> tuple[str, ...]:
        tools = [spec.tool for spec in (self.write, self.search) if spec is not None]
        if self.scope.create_tool:
            tools.append(self.scope.create_tool)
        if self.consistency.tool:
            tools.append(self.consistency.tool)
        return tuple(tools)


def agent_tool_names(configured: tuple[str, ...], explicit: bool, mapping: ToolMapping | None) -> tuple[str, ...]:
    """The tools the memory agent gets: `[agent] tools` on Mycelian or when set in the file, else a
    mapped server's own list (the default `[agent] tools` name Mycelian's tools)."""
    return tuple(configured) if mapping is None or explicit else tuple(mapping.agent.tools)


def preset_names() -> list[str]:
    folder = resources.files(PRESETS_PACKAGE)
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_mapping(name_or_path: str, *, base_dir: Path | None = None) -> ToolMapping:
    """A preset by name, or a user mapping file (relative to `base_dir`); ConfigError names the
    file and the key that is wrong."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        path = Path(name_or_path)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise ConfigError(f"[memory].mapping: no mapping file at {path}")
        text, source = path.read_text(encoding="utf-8"), str(path)
    else:
        if name_or_path not in preset_names():
            raise ConfigError(f"[memory].preset: unknown preset {name_or_path!r}; shipped presets: "
                              f"{', '.join(preset_names())} (or write a mapping file and set [memory].mapping)")
        text = resources.files(PRESETS_PACKAGE).joinpath(f"{name_or_path}.toml").read_text(encoding="utf-8")
        source = f"preset {name_or_path}"
    return parse_mapping(text, source)


def parse_mapping(text: str, source: str) -> ToolMapping:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not valid TOML: {err}") from None
    try:
        mapping = ToolMapping.model_validate({**data, "source": source})
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"{source}: {key}: {first['msg']}") from None
    problems = _placeholder_problems(mapping)
    if problems:
        raise ConfigError(f"{source}: " + "; ".join(problems))
    return mapping


def _placeholder_problems(mapping: ToolMapping) -> list[str]:
    checks: list[tuple[str, Any, tuple[str, ...]]] = [
        ("server.env", mapping.server.env, ENV_PLACEHOLDERS + SCOPE_PLACEHOLDERS),
        ("server.args", list(mapping.server.args), ENV_PLACEHOLDERS + SCOPE_PLACEHOLDERS),
        ("consistency.arguments", mapping.consistency.arguments, SCOPE_PLACEHOLDERS),
        ("scope.create_arguments", mapping.scope.create_arguments, ("title", "case_id", "description"))]
    if mapping.write is not None:
        checks.append(("write.arguments", mapping.write.arguments, WRITE_PLACEHOLDERS))
    if mapping.search is not None:
        checks.append(("search.arguments", mapping.search.arguments, SEARCH_PLACEHOLDERS))
    problems = []
    for key, template, allowed in checks:
        unknown = sorted(placeholders(template) - set(allowed))
        if unknown:
            problems.append(f"{key} uses {{{unknown[0]}}}; allowed there: "
                            + ", ".join(f"{{{name}}}" for name in allowed))
    for key, template in (("server.env", mapping.server.env), ("server.args", list(mapping.server.args))):
        problems += [f"{key}: {problem}" for problem in scope_dir_escapes(template)]
    if mapping.scope.kind in ("namespace", "container"):
        for key, template in (("write.arguments", mapping.write.arguments if mapping.write else {}),
                              ("search.arguments", mapping.search.arguments if mapping.search else {})):
            if "scope" not in placeholders(template):
                problems.append(f"{key} must pass {{scope}} (the {mapping.scope.kind} scope keeps cases apart by it)")
    other = [p for paths in (mapping.write.other_tools.values() if mapping.write else ()) for p in paths]
    for key, paths in (("scope.id", [mapping.scope.id] if mapping.scope.id else []),
                       ("write.text_paths", mapping.write.text_paths if mapping.write else ()),
                       ("write.other_tools", other),
                       ("search paths", [p for p in _search_paths(mapping.search) if p])):
        for path in paths:
            try:
                parse_path(path)
            except ValueError as err:
                problems.append(f"{key}: {err}")
    return problems


def _search_paths(search: SearchSpec | None) -> list[str]:
    return [search.hits, search.text, search.id, search.score] if search else []


# --- templates ----------------------------------------------------------------------------------

def placeholders(template: Any) -> set[str]:
    """Every {name} a template mentions (in strings, lists and tables, keys excluded)."""
    if isinstance(template, str):
        return set(_PLACEHOLDER.findall(template))
    if isinstance(template, dict):
        return set().union(*(placeholders(v) for v in template.values())) if template else set()
    if isinstance(template, (list, tuple)):
        return set().union(*(placeholders(v) for v in template)) if template else set()
    return set()


def _strings(template: Any) -> list[str]:
    if isinstance(template, str):
        return [template]
    if isinstance(template, dict):
        return [text for value in template.values() for text in _strings(value)]
    if isinstance(template, (list, tuple)):
        return [text for value in template for text in _strings(value)]
    return []


def scope_dir_escapes(template: Any) -> list[str]:
    """Values that name a path under `{scope_dir}` and climb out of it with '..' (a case's server must
    keep its data in its own folder inside the run directory)."""
    return [f"{text!r} leaves {{scope_dir}} with '..'; keep the server's data inside the case's own folder"
            for text in _strings(template)
            if "{scope_dir}" in text and ".." in re.split(r"[/\\=:,;]", text)]


def render(template: Any, values: Mapping[str, Json]) -> Any:
    """The template with its placeholders filled; a string that is one placeholder keeps the value's type."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole and whole.group(1) in values:
            return values[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)
    if isinstance(template, dict):
        return {key: render(value, values) for key, value in template.items()}
    if isinstance(template, (list, tuple)):
        return [render(value, values) for value in template]
    return template


# --- paths into JSON ------------------------------------------------------------------------------

def parse_path(path: str) -> list[str]:
    """`entities[*].observations[*]` -> ["entities", "*", "observations", "*"]."""
    steps: list[str] = []
    for part in path.split("."):
        match = _PATH_PART.match(part)
        if not part or not match or (not match.group(1) and not match.group(2)):
            raise ValueError(f"{path!r} is not a path like 'entries[*].text' (names joined by '.', "
                             "'[*]' for every item of a list)")
        if match.group(1):
            steps.append(match.group(1))
        steps += ["*"] * match.group(2).count("[*]")
    return steps


def extract(value: Any, path: str) -> list[Any]:
    """Every value at `path` ("" is the value itself); missing keys give nothing, never an error."""
    items = [value]
    for step in parse_path(path) if path else []:
        nxt: list[Any] = []
        for item in items:
            if step == "*":
                if isinstance(item, list):
                    nxt.extend(item)
            elif isinstance(item, dict) and step in item:
                nxt.append(item[step])
        items = nxt
    return items


def extract_text(value: Any, path: str) -> str:
    """The text at `path`: strings as they are, lists of strings one per line, else JSON."""
    import json

    parts = []
    for item in extract(value, path):
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, list):
            parts.extend(x if isinstance(x, str) else json.dumps(x) for x in item)
        elif item is not None:
            parts.append(json.dumps(item) if isinstance(item, (dict, list)) else str(item))
    return "\n".join(parts)


if __name__ == "__main__":  # python -m benchmarker.memory.tool_mapping --schema > benchmarker/memory/presets/mapping.schema.json
    import json
    import sys

    if sys.argv[1:] != ["--schema"]:
        sys.exit("usage: python -m benchmarker.memory.tool_mapping --schema")
    print(json.dumps(ToolMapping.model_json_schema(), indent=2))
