"""A strict unified-diff applier for the prompt copies (pure Python, no `patch` binary).

Strict means: every context and removed line of a hunk must match the file exactly (no fuzz,
no whitespace folding). A hunk may sit at another line than its header says (an offset, as a
model often miscounts), but only where its old text occurs exactly once; otherwise the whole
patch is refused and nothing is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


class PatchError(ValueError):
    """The diff is malformed or does not apply exactly; the message says which hunk and why."""


@dataclass
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", text)

    @property
    def old(self) -> list[str]:
        return [text for op, text in self.lines if op in " -"]

    @property
    def new(self) -> list[str]:
        return [text for op, text in self.lines if op in " +"]


@dataclass
class FilePatch:
    old_path: str
    new_path: str
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The patched file's path without git's a/ b/ prefixes."""
        return strip_prefix(self.new_path if self.new_path != "/dev/null" else self.old_path)

    @property
    def changed_lines(self) -> int:
        return sum(1 for h in self.hunks for op, _ in h.lines if op in "+-")


def strip_prefix(path: str) -> str:
    path = path.split("\t", 1)[0].strip()
    return path[2:] if path.startswith(("a/", "b/")) else path


def parse_unified_diff(text: str) -> list[FilePatch]:
    """Files and hunks of a unified diff; line counts in each hunk header are checked."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline; an empty line inside a hunk is an empty context line
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            patches.append(FilePatch(line[4:].strip(), lines[i + 1][4:].strip()))
            i += 2
            continue
        match = _HUNK_RE.match(line)
        if match:
            if not patches:
                raise PatchError("a hunk comes before any '--- a/file' / '+++ b/file' header")
            hunk, i = _read_hunk(match, lines, i + 1)
            patches[-1].hunks.append(hunk)
            continue
        i += 1  # diff --git, index lines, prose around the diff
    if not patches or not any(p.hunks for p in patches):
        raise PatchError("no unified-diff hunks found (expected '--- a/...', '+++ b/...', '@@ -l,n +l,n @@')")
    for patch in patches:
        if not patch.hunks:
            raise PatchError(f"{patch.path}: file header without hunks")
    return patches


def _read_hunk(match: re.Match, lines: list[str], i: int) -> tuple[Hunk, int]:
    old_len = int(match.group(2)) if match.group(2) is not None else 1
    new_len = int(match.group(4)) if match.group(4) is not None else 1
    hunk = Hunk(int(match.group(1)), old_len, int(match.group(3)), new_len)
    seen_old = seen_new = 0
    while i < len(lines) and (seen_old < old_len or seen_new < new_len):
        line = lines[i]
        if line == NO_NEWLINE:
            i += 1
            continue
        op, text = (line[:1] or " "), line[1:]
        if op not in " -+":
            raise PatchError(f"hunk @@ -{hunk.old_start},{old_len} @@: line {line!r} is not ' ', '-' or '+'")
        hunk.lines.append((op, text))
        seen_old += op in " -"
        seen_new += op in " +"
        i += 1
    if (seen_old, seen_new) != (old_len, new_len):
        raise PatchError(f"hunk @@ -{hunk.old_start},{old_len} +{hunk.new_start},{new_len} @@ has "
                         f"{seen_old} old and {seen_new} new lines; the header counts do not match")
    while i < len(lines) and lines[i] == NO_NEWLINE:
        i += 1
    return hunk, i


def apply_hunks(original: str, hunks: list[Hunk], *, name: str = "file") -> str:
    """The patched text; raises PatchError when any hunk's old lines do not match exactly."""
    trailing_newline = original.endswith("\n")
    lines = original.split("\n")
    if trailing_newline:
        lines.pop()
    out: list[str] = []
    cursor = 0  # next unconsumed line of `lines`
    for number, hunk in enumerate(hunks, start=1):
        at = _locate(lines, hunk, cursor, name, number)
        out.extend(lines[cursor:at])
        out.extend(hunk.new)
        cursor = at + len(hunk.old)
    out.extend(lines[cursor:])
    text = "\n".join(out)
    return text + "\n" if trailing_newline and out else text


def _locate(lines: list[str], hunk: Hunk, cursor: int, name: str, number: int) -> int:
    old = hunk.old
    stated = max(hunk.old_start - 1, 0) if hunk.old_len else hunk.old_start  # -l,0 inserts after line l
    if not old:
        if stated < cursor or stated > len(lines):
            raise PatchError(f"{name}: hunk {number} inserts at line {hunk.old_start}, outside the file")
        return stated
    if lines[stated:stated + len(old)] == old and stated >= cursor:
        return stated
    found = [i for i in range(cursor, len(lines) - len(old) + 1) if lines[i:i + len(old)] == old]
    if len(found) == 1:
        return found[0]
    first = old[0][:60]
    why = "does not occur" if not found else f"occurs {len(found)} times"
    raise PatchError(f"{name}: hunk {number} (@@ -{hunk.old_start},{hunk.old_len} @@) does not apply: its "
                     f"context/removed lines (starting {first!r}) {why} in the file; refusing fuzzy matching")


def apply_patch(files: dict[str, str], diff_text: str) -> dict[str, str]:
    """Apply a diff to {path: text}; returns only the changed files. All-or-nothing."""
    patches = parse_unified_diff(diff_text)
    changed: dict[str, str] = {}
    for patch in patches:
        if patch.old_path == "/dev/null" or patch.new_path == "/dev/null":
            raise PatchError(f"{patch.path}: creating or deleting files is not allowed; edit an existing copy")
        if strip_prefix(patch.old_path) != strip_prefix(patch.new_path):
            raise PatchError(f"renames are not allowed ({patch.old_path} -> {patch.new_path})")
        path = patch.path
        if path not in files:
            raise PatchError(f"{path}: no such file among {sorted(files)}")
        changed[path] = apply_hunks(changed.get(path, files[path]), patch.hunks, name=path)
    return changed
