"""The docs agree with themselves and the code: every page is reachable from the README's and the home page's
tables (docs/beam.md was linked from neither), and the default embedder is the one the schema has (a config comment
called minilm the default; the code and docs/memory.md say static)."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarker.config_schema import MemoryConfig

REPO = Path(__file__).parents[1]
DOCS = REPO / "docs"


def test_every_docs_page_is_linked_from_the_readme_and_the_home_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "index.md")
    assert [p for p in pages if f"(docs/{p})" not in readme] == [], "README.md's Documentation table lacks these"
    assert [p for p in pages if f"]({p})" not in home] == [], "docs/index.md's page table lacks these"


def test_the_default_embedder_is_named_the_same_everywhere() -> None:
    default = MemoryConfig.model_fields["embedder"].default
    assert f"`{default}` (default)" in (DOCS / "memory.md").read_text(encoding="utf-8")
    wrong = []
    for config in sorted((REPO / "configs").glob("*.toml")):
        for n, line in enumerate(config.read_text(encoding="utf-8").splitlines(), 1):
            found = re.match(r'\s*embedder\s*=\s*"(\w+)"\s*#(.*)', line)
            if found and "default" in found[2] and found[1] != default and f'"{default}"' not in found[2]:
                wrong.append(f"{config.name}:{n}: {line.strip()}")
    assert not wrong, f"these call a non-default embedder the default ({default!r} is):\n" + "\n".join(wrong)
