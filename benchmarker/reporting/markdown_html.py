"""A small markdown -> HTML renderer for reports: the subset our reports and suites write.

Supported: headings (#..####), pipe tables, fenced code (closed by a fence at least as long as
the one that opened it, so a text holding ``` can be fenced with ````), "-"/"*" bullet lists,
"> " quotes, images on their own line, collapsed blocks (a line `<details><summary>TEXT</summary>`
... a line `</details>`, TEXT rendered inline), paragraphs, and inline `code`, **bold** and
~~struck~~ and [links](url) (http, https, mailto or relative only: a `javascript:` link in a run's name stays text).
Everything else is escaped text. Why not the `markdown` package: one dependency less, and
report.html must be self-contained, so images go through `image_src` (it turns a plot path
into a base64 data URI).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+)\)\s*$")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):")
_DETAILS = re.compile(r"^<details><summary>(.*)</summary>$")
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def inline(text: str) -> str:
    """Escape, then apply `code`, **bold** and [text](url) (code spans are left untouched)."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        s = html.escape(part, quote=False)
        s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"~~(.+?)~~", r"<del>\1</del>", s)  # an invalid run's accuracy: struck, not a score
        s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", _link, s)
        out.append(s)
    return "".join(out)


def _link(match: re.Match[str]) -> str:
    """An anchor for [text](url) when the url is harmless; else the text as written (already escaped)."""
    url = html.unescape(match.group(2))
    scheme = _SCHEME.match(url)
    if scheme and scheme.group(1).lower() not in SAFE_SCHEMES:
        return match.group(0)
    return f'<a href="{html.escape(url)}">{match.group(1)}</a>'


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run in `text`, so the text cannot close it early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _cells(row: str) -> list[str]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)]


def _table(rows: list[str]) -> str:
    head, body = _cells(rows[0]), [_cells(r) for r in rows[2:]]
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr></thead>", "<tbody>"]
    for cells in body:
        out.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def render(markdown: str, image_src: Callable[[str], str | None] = lambda p: p) -> str:
    """HTML for a markdown document; `image_src(path)` gives each image's src (None drops it)."""
    lines = markdown.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = stripped[:len(stripped) - len(stripped.lstrip("`"))]
            j = i + 1
            while j < len(lines) and not (lines[j].strip().startswith(fence) and not lines[j].strip().strip("`")):
                j += 1
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1:j])) + "</code></pre>")
            i = j + 1
            continue
        details = _DETAILS.match(stripped)
        if details or stripped == "</details>":
            out.append(f"<details><summary>{inline(details.group(1))}</summary>" if details else "</details>")
            i += 1
            continue
        if not stripped:
            i += 1
            continue
        heading = re.match(r"^(#{1,4})\s+(.*)$", stripped)
        if heading:
            level = len(heading.group(1))
            anchor = re.sub(r"[^a-z0-9]+", "-", heading.group(2).lower()).strip("-")
            out.append(f'<h{level} id="{anchor}">{inline(heading.group(2))}</h{level}>')
            i += 1
            continue
        image = _IMAGE.match(stripped)
        if image:
            src = image_src(image.group(2))
            if src:
                out.append(f'<figure><img alt="{html.escape(image.group(1))}" src="{src}"></figure>')
            i += 1
            continue
        if stripped.startswith("|") and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1].strip()):
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            out.append(_table([ln.strip() for ln in lines[i:j]]))
            i = j
            continue
        if re.match(r"^[-*]\s+", stripped):
            items = []
            while i < len(lines) and re.match(r"^\s*[-*]\s+", lines[i]):
                item = re.sub(r"^\s*[-*]\s+", "", lines[i])
                items.append(f"<li>{inline(item)}</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        if stripped.startswith(">"):
            quote = []
            while i < len(lines) and lines[i].strip().startswith(">"):
                quote.append(lines[i].strip()[1:].strip())
                i += 1
            out.append(f"<blockquote>{inline(' '.join(quote))}</blockquote>")
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not re.match(r"^(#{1,4}\s|```|\||[-*]\s|>|!\[|<details>|</details>$)",
                                                                    lines[i].strip()):
            para.append(lines[i].strip())
            i += 1
        if not para:  # a line that looked like a block start but was not one
            para.append(stripped)
            i += 1
        out.append(f"<p>{inline(' '.join(para))}</p>")
    return "\n".join(out)
