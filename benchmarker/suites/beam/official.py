"""BEAM's official judge prompts, read from the user's BEAM clone (never copied into this repository).

`load_official_prompts(clone)` takes, without executing either file:

    src/prompts.py                      the constant `unified_llm_judge_base_prompt` (one call per rubric
                                        item: `<rubric_item>` and `<llm_response>` replaced, `<question>`
                                        left as written, as the official code leaves it)
    src/evaluation/compute_metrics.py   `llm_equivalence`'s system message and user message (event ordering's
                                        YES/NO alignment of each answer line to an unused rubric item)

Both are read with `ast`: the files import packages (nltk, sentence-transformers, an LLM client) that a
harness must not need, and running a clone's code to read a string would be a needless risk.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PROMPTS_FILE = Path("src") / "prompts.py"
METRICS_FILE = Path("src") / "evaluation" / "compute_metrics.py"
RUBRIC_CONSTANT = "unified_llm_judge_base_prompt"
EQUIVALENCE_FUNCTION = "llm_equivalence"
FIRST, SECOND = "first_paragraph", "second_paragraph"


@dataclass(frozen=True)
class OfficialPrompts:
    """The clone's judge texts: the rubric prompt, and the alignment classifier's two messages."""

    rubric: str
    equivalence_system: str
    equivalence_user: tuple[str | tuple[str], ...]   # literal parts, and (name,) where a snippet goes
    source: str

    def rubric_prompt(self, item: str, response: str) -> str:
        """The official substitution, in its order: rubric item first, then the response."""
        return self.rubric.replace("<rubric_item>", item).replace("<llm_response>", response)

    def equivalence_messages(self, first: str, second: str) -> list[tuple[str, str]]:
        """(role, text) of one alignment call: the reference item is the first snippet, the answer line the second."""
        values = {FIRST: first, SECOND: second}
        user = "".join(part if isinstance(part, str) else values[part[0]] for part in self.equivalence_user)
        return [("system", self.equivalence_system), ("user", user)]


def load_official_prompts(clone: str | Path) -> tuple[OfficialPrompts | None, str]:
    """(the prompts, "") from a BEAM clone, or (None, why not)."""
    root = Path(clone).expanduser()
    prompts_path, metrics_path = root / PROMPTS_FILE, root / METRICS_FILE
    if not prompts_path.is_file():
        return None, f"{prompts_path} not found ([dataset] file must be a BEAM clone for its official judge)"
    try:
        rubric = _constant(ast.parse(prompts_path.read_text(encoding="utf-8")), RUBRIC_CONSTANT)
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        return None, f"{prompts_path}: {exc}"
    if rubric is None:
        return None, f"{prompts_path} has no string constant {RUBRIC_CONSTANT}"
    if "<rubric_item>" not in rubric or "<llm_response>" not in rubric:
        return None, f"{prompts_path}: {RUBRIC_CONSTANT} lacks the <rubric_item> / <llm_response> placeholders"
    if not metrics_path.is_file():
        return None, f"{metrics_path} not found (event ordering's alignment prompt lives there)"
    try:
        system, user = _equivalence(ast.parse(metrics_path.read_text(encoding="utf-8")))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        return None, f"{metrics_path}: {exc}"
    return OfficialPrompts(rubric, system, user, str(root)), ""


def _constant(tree: ast.Module, name: str) -> str | None:
    """The value of a module-level `name = "..."` (the last assignment wins, as at import)."""
    found = None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = getattr(node, "value", None)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found = value.value
            else:
                raise ValueError(f"{name} is not a plain string literal")
    return found


def _equivalence(tree: ast.Module) -> tuple[str, tuple[str | tuple[str], ...]]:
    """`llm_equivalence`'s system content (a literal) and user content (an f-string of the two snippets)."""
    function = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == EQUIVALENCE_FUNCTION), None)
    if function is None:
        raise ValueError(f"no function {EQUIVALENCE_FUNCTION}")
    contents: dict[str, ast.expr] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            fields = {k.value: v for k, v in zip(node.value.keys, node.value.values, strict=True)
                      if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            role = fields.get("role")
            if isinstance(role, ast.Constant) and "content" in fields:
                contents[str(role.value)] = fields["content"]
    system, user = contents.get("system"), contents.get("user")
    if not (isinstance(system, ast.Constant) and isinstance(system.value, str)):
        raise ValueError(f"{EQUIVALENCE_FUNCTION}: no literal system message")
    if isinstance(user, ast.Constant) and isinstance(user.value, str):
        return system.value, (user.value,)
    if not isinstance(user, ast.JoinedStr):
        raise ValueError(f"{EQUIVALENCE_FUNCTION}: the user message is not an f-string")
    parts: list[str | tuple[str]] = []
    for value in user.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value)
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name) \
                and value.value.id in (FIRST, SECOND) and value.format_spec is None and value.conversion == -1:
            parts.append((value.value.id,))
        else:
            raise ValueError(f"{EQUIVALENCE_FUNCTION}: the user message holds more than the two snippets")
    return system.value, tuple(parts)
