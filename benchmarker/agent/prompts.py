"""Prompt files (top-level `prompts/`): loading, composing, and parsing them back.

Every prompt the harness sends lives in `prompts/` as a file; the package ships that folder as
`benchmarker.prompts`. The offline models read the same texts a real model reads, so each format
sits here next to its parser (render_turn / parse_turn, compose / parse_memory_system_prompt,
render_qa_prompt / parse_qa_prompt): they cannot drift apart, and composing checks that the
result parses back. Mycelian's limits (benchmarker.memory.limits) are placeholders in the files
and filled in here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from benchmarker.log.lines import Json
from benchmarker.memory.limits import MYCELIAN_CONTEXT_CADENCE, PROMPT_LIMITS, render_limits

PROMPTS_ENV = "MYCELIAN_LME_PROMPTS_DIR"
PROMPTS_PACKAGE = "benchmarker.prompts"  # the top-level prompts/ folder (pyproject's package-dir)
MEMORY_AGENT_PREFIX = "memory_agent_prefix"
AGENT_TURN = "agent_turn"
QA_READER = "qa_reader"


def prompts_dir() -> Path:
    """`$MYCELIAN_LME_PROMPTS_DIR`, else the prompts installed with the package (`benchmarker.prompts`)."""
    override = os.environ.get(PROMPTS_ENV)
    if override:
        return Path(override).expanduser()
    try:
        return Path(str(resources.files(PROMPTS_PACKAGE)))
    except ModuleNotFoundError:
        # A source checkout on PYTHONPATH that was never pip-installed has no package-dir mapping.
        return Path(__file__).resolve().parents[2] / "prompts"


PROMPTS_DIR = prompts_dir()


def load_prompt(name: str, directory: Path | None = None) -> str:
    """The text of `prompts/<name>.txt` (a trailing newline removed); `directory` overrides `prompts/`."""
    directory = prompts_dir() if directory is None else Path(directory)
    path = directory / (name if name.endswith(".txt") else f"{name}.txt")
    if not path.is_file():
        if os.environ.get(PROMPTS_ENV):
            fix = (f"${PROMPTS_ENV} points at {directory}: copy the missing file there from the repository's "
                   f"prompts/ folder, or unset {PROMPTS_ENV} to use the prompts installed with the package")
        else:
            fix = (f"the prompts ship inside the package ({PROMPTS_PACKAGE}, from the repository's prompts/ "
                   f"folder): reinstall it (pip install . or pip install -e .), or set {PROMPTS_ENV} to a "
                   f"folder holding every prompt file")
        raise FileNotFoundError(f"prompt file {path.name} not found in {directory}; {fix}.")
    return _read(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int) -> str:
    text = Path(path).read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


# --- memory agent system prompt -------------------------------------------------------------

@dataclass(frozen=True)
class MemoryPromptFacts:
    """What the offline agent reads back from a composed system prompt."""

    vault_id: str
    memory_id: str
    context_cadence: int          # 0 with context_update "session" (no message cadence)
    raw_entry: str = "model"      # "harness": add_entry names the message, the harness stores its text
    context_update: str = "cadence"


_FACT_PATTERNS = {
    "vault_id": re.compile(r"^- vault_id: (.+)$", re.M),
    "memory_id": re.compile(r"^- memory_id: (.+)$", re.M),
}
_CADENCE_RE = re.compile(r"^- Context cadence: every (\d+) messages", re.M)
_SESSION_CONTEXT_RE = re.compile(r"^- Context update: once per session", re.M)
_HARNESS_ENTRY_RE = re.compile(r"^- Entries: call add_entry once for every message, with message \(", re.M)
RAW_ENTRY_MODES = ("model", "harness")
CONTEXT_UPDATES = ("cadence", "session")
CONTEXT_DUE = "context_due"


def context_due_line() -> str:
    """The line the harness ends a chat turn with when the context update is due (`context_due.txt`)."""
    return load_prompt(CONTEXT_DUE).strip()


def policy_texts(raw_entry: str, context_update: str, context_cadence: int,
                 directory: Path | None = None) -> dict[str, str]:
    """The prefix's entry and context bullets for `[agent] raw_entry` and `context_update`
    (`entry_policy_<mode>.txt`, `context_policy_<mode>.txt`); a prompts copy without them reads the shipped ones."""
    if raw_entry not in RAW_ENTRY_MODES or context_update not in CONTEXT_UPDATES:
        raise ValueError(f"unknown raw_entry {raw_entry!r} or context_update {context_update!r}")
    out = {}
    for key, name in (("entry_policy", f"entry_policy_{raw_entry}"), ("context_policy", f"context_policy_{context_update}")):
        folder = directory if directory is not None and (Path(directory) / f"{name}.txt").is_file() else None
        out[key] = render_limits(load_prompt(name, folder), context_cadence=int(context_cadence)).replace(
            "{context_due_line}", context_due_line()).replace("{{", "{").replace("}}", "}")
    return out

DEFAULT_PROMPT_SECTIONS = (
    ("Context summary rules", None),
    ("Entry capture", "entry_capture_prompt"),
    ("Summaries", "summary_prompt"),
    ("Context document", "context_prompt"),
)
INGEST_UNITS = ("message", "exchange", "session")


def unit_instructions(unit: str, directory: Path | None = None, context_update: str = "cadence") -> str:
    """How messages reach the agent for an `[agent] ingest_unit` (`prompts/ingest_unit_<unit>.txt`;
    the session unit with `context_update = "session"`: `ingest_unit_session_once.txt`, one writing reply).

    A prompts copy without the unit files (self-improve candidates copy only the files they may
    change) reads the shipped text.
    """
    if unit not in INGEST_UNITS:
        raise ValueError(f"unknown ingest unit {unit!r}; expected one of {', '.join(INGEST_UNITS)}")
    name = f"ingest_unit_{unit}" + ("_once" if unit == "session" and context_update == "session" else "")
    if directory is not None and not (Path(directory) / f"{name}.txt").is_file():
        directory = None
    return render_limits(load_prompt(name, directory))


# Mycelian's prompts save the context "about every 6 messages" / "after you've stored ≈ 6
# messages"; the agent follows [params].context_cadence, so those sentences are restated with it.
_MYCELIAN_CADENCE_RES = (
    re.compile(rf"(?<=\bevery ){MYCELIAN_CONTEXT_CADENCE}(?= (?:\w+ )?messages\b)", re.I),
    re.compile(rf"(?<=\babout ){MYCELIAN_CONTEXT_CADENCE}(?= (?:\w+ )?messages\b)", re.I),
    re.compile(rf"(?<=≈){MYCELIAN_CONTEXT_CADENCE}\b|(?<=≈ ){MYCELIAN_CONTEXT_CADENCE}\b"),
)


def restate_cadence(text: str, context_cadence: int) -> str:
    """Mycelian's "about every 6 messages" sentences with the configured cadence instead of its 6."""
    for pattern in _MYCELIAN_CADENCE_RES:
        text = pattern.sub(str(int(context_cadence)), text)
    return text


def compose_memory_system_prompt(prefix_template: str, default_prompts: Mapping[str, Json], *, vault_id: str,
                                 memory_id: str, context_cadence: int, unit_text: str | None = None,
                                 raw_entry: str = "model", context_update: str = "cadence",
                                 directory: Path | None = None) -> str:
    """prefix (ids, cadence, ingest unit) + Mycelian's rules and three templates; fails on empty texts.

    Mycelian's limits fill the prefix's placeholders, and Mycelian's own cadence sentences are
    restated with `context_cadence`, so the agent never reads two numbers for one rule. Nothing in
    it changes between the calls of one case (no session, date, time or counter), so the tools +
    system prefix is byte-identical and cacheable across all of a question's sessions.
    """
    found = default_prompts.get("templates")
    templates = found if isinstance(found, dict) else {}
    texts = []
    for heading, key in DEFAULT_PROMPT_SECTIONS:
        text = default_prompts.get("context_summary_rules") if key is None else templates.get(key)
        if not isinstance(text, str) or not text.strip():
            name = "context_summary_rules" if key is None else f"templates.{key}"
            raise ValueError(f"get_default_prompts returned an empty {name}: refusing to run the memory agent "
                             "without Mycelian's prompts (check the memory server version)")
        texts.append(f"## {heading}\n{restate_cadence(text.strip(), context_cadence)}")
    unit_text = unit_instructions("message") if unit_text is None else unit_text
    prefix = prefix_template.format(vault_id=vault_id, memory_id=memory_id, context_cadence=context_cadence,
                                    unit_instructions=unit_text.rstrip(), **PROMPT_LIMITS,
                                    **policy_texts(raw_entry, context_update, context_cadence, directory))
    prompt = prefix.rstrip() + "\n\n" + "\n\n".join(texts)
    expected = MemoryPromptFacts(vault_id, memory_id, int(context_cadence) if context_update == "cadence" else 0,
                                 raw_entry, context_update)
    if parse_memory_system_prompt(prompt) != expected:
        raise ValueError(f"{MEMORY_AGENT_PREFIX}.txt no longer states the ids and policy in the lines "
                         "'- vault_id: ...', '- memory_id: ...', '{entry_policy}' and '{context_policy}' "
                         "('- Context cadence: every N messages'); keep them (the offline agent reads them)")
    return prompt


def parse_memory_system_prompt(text: str) -> MemoryPromptFacts | None:
    """Read ids, cadence and policy modes back from a composed system prompt (first occurrences)."""
    found: dict[str, str] = {}
    for key, pattern in _FACT_PATTERNS.items():
        match = pattern.search(text)
        if match is None:
            return None
        found[key] = match.group(1).strip()
    raw_entry = "harness" if _HARNESS_ENTRY_RE.search(text) else "model"
    if _SESSION_CONTEXT_RE.search(text):
        return MemoryPromptFacts(found["vault_id"], found["memory_id"], 0, raw_entry, "session")
    cadence = _CADENCE_RE.search(text)
    if cadence is None:
        return None
    return MemoryPromptFacts(found["vault_id"], found["memory_id"], int(cadence.group(1)), raw_entry)


# --- one dataset message as an agent turn ---------------------------------------------------

@dataclass(frozen=True)
class TurnHeader:
    session_id: str
    session_date: str
    turn_number: int
    turn_count: int
    role: str
    content: str


_TURN_RE = re.compile(r"\A\[session (?P<session_id>.+?) \| (?P<session_date>.*?) \| message (?P<turn_number>\d+) "
                      r"of (?P<turn_count>\d+)\] (?P<role>[^\n:\]]+):\n(?P<content>.*)\Z", re.S)


def render_turn(session_id: str, session_date: str, turn_number: int, turn_count: int, role: str,
                content: str, *, template: str | None = None) -> str:
    """One dataset message as the agent sees it: the `agent_turn.txt` header, then the content."""
    template = load_prompt(AGENT_TURN) if template is None else template
    return template.format(session_id=session_id, session_date=session_date, turn_number=turn_number,
                           turn_count=turn_count, role=role, content=content)


def parse_turn(text: str) -> TurnHeader | None:
    """The inverse of render_turn (None when the text has no turn header)."""
    match = _TURN_RE.match(text)
    if match is None:
        return None
    g = match.groupdict()
    return TurnHeader(g["session_id"], g["session_date"], int(g["turn_number"]), int(g["turn_count"]),
                      g["role"], g["content"])


UNIT_SEPARATOR = "\n\n"
_HEADER_LINE = re.compile(r"^\[session (?P<session_id>.+?) \| (?P<session_date>.*?) \| message (?P<turn_number>\d+) "
                          r"of (?P<turn_count>\d+)\] (?P<role>[^\n:\]]+):$", re.M)


def render_unit(turns: list[tuple[str, str, int, int, str, str]], *, template: str | None = None,
                context_due: bool = False) -> str:
    """Several messages (an exchange, a session) as one chat turn: each with its own header; with
    `context_due` the turn ends with the `context_due.txt` line (`[agent] context_update = "session"`)."""
    text = UNIT_SEPARATOR.join(render_turn(*turn, template=template) for turn in turns)
    return text + UNIT_SEPARATOR + context_due_line() if context_due else text


def split_context_due(text: str) -> tuple[str, bool]:
    """The chat turn without its closing context-due line, and whether it had one."""
    line = UNIT_SEPARATOR + context_due_line()
    return (text[:-len(line)], True) if text.endswith(line) else (text, False)


def parse_unit(text: str) -> list[TurnHeader]:
    """The inverse of render_unit: every message of a chat turn (one for a plain turn, [] without a header).

    A header-like line inside a message counts only when it continues the numbering of the same
    session, so quoted headers in message text do not split a message.
    """
    starts: list[re.Match[str]] = []
    for match in _HEADER_LINE.finditer(text):
        if not starts:
            if match.start() != 0:
                return []
            starts.append(match)
            continue
        prev = starts[-1]
        if (match.group("session_id") == prev.group("session_id")
                and int(match.group("turn_number")) == int(prev.group("turn_number")) + 1
                and text[:match.start()].endswith(UNIT_SEPARATOR)):
            starts.append(match)
    turns = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() - len(UNIT_SEPARATOR) if i + 1 < len(starts) else len(text)
        header = parse_turn(text[match.start():end])
        if header is not None:
            turns.append(header)
    return turns


# --- QA reader prompt -------------------------------------------------------------------------

@dataclass(frozen=True)
class QAPrompt:
    question: str
    question_date: str
    context: str


_QA_SECTIONS = {
    "context": re.compile(r"^=== MEMORY CONTEXT ===\n(.*)\n=== END MEMORY CONTEXT ===$", re.S | re.M),
    "question_date": re.compile(r"^=== QUESTION DATE ===\n(.*?)\n\n?=== QUESTION ===$", re.S | re.M),
    "question": re.compile(r"^=== QUESTION ===\n(.*?)\n\n?=== ANSWER ===", re.S | re.M),
}


def render_qa_prompt(question: str, question_date: str, context: str, *, template: str | None = None) -> str:
    """The QA prompt (`qa_reader.txt`) for one question and its retrieved memory context."""
    template = load_prompt(QA_READER) if template is None else template
    return template.format(question=question, question_date=question_date or "unknown", context=context)


def parse_qa_prompt(text: str) -> QAPrompt | None:
    """The inverse of render_qa_prompt (None when a section marker is missing)."""
    found = {}
    for key, pattern in _QA_SECTIONS.items():
        # The context (greedy: up to the LAST end marker) is cut out first, so marker-like lines inside
        # retrieved text cannot confuse the question sections.
        match = pattern.search(text)
        if match is None:
            return None
        found[key] = match.group(1).strip()
        if key == "context":
            text = text[:match.start()] + text[match.end():]
    return QAPrompt(found["question"], found["question_date"], found["context"])


@dataclass(frozen=True)
class AgentPrompts:
    """The memory agent's prompt files as a memory driver composes its system prompt from them
    (memory.driver.PromptKit): a self-improve candidate passes its own prompt folder and cadence."""

    directory: Path | None
    context_cadence: int
    unit_text: str
    raw_entry: str = "model"
    context_update: str = "cadence"

    def load(self, name: str) -> str:
        return load_prompt(name, directory=self.directory)

    def mycelian(self, default_prompts: Mapping[str, Json], *, vault_id: str, memory_id: str) -> str:
        return compose_memory_system_prompt(load_prompt(MEMORY_AGENT_PREFIX + ".txt", directory=self.directory),
                                            default_prompts, vault_id=vault_id, memory_id=memory_id,
                                            context_cadence=self.context_cadence, unit_text=self.unit_text,
                                            raw_entry=self.raw_entry, context_update=self.context_update,
                                            directory=self.directory)
