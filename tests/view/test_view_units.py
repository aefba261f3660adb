"""The run browser's pieces without HTTP: lazy JSONL indexes (appends, torn and replaced files), the
decisions index, the catalog's walk and ids, and the list's query strings."""

from __future__ import annotations

import json
import os
from pathlib import Path

from benchmarker.view.catalog import Catalog, safe_name
from benchmarker.view.lines import KeyIndex, ResultsIndex
from benchmarker.view.links import BundleLinks, bundle_path
from benchmarker.view.listing import ListQuery


def line(qid: str, label: bool | None = True, **extra) -> str:
    return json.dumps({"question_id": qid, "case_id": qid, "question_type": "t", "label": label, **extra}) + "\n"


def test_results_index_reads_only_the_appended_tail_and_waits_for_a_torn_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(line("a") + "\n" + line("b", False) + '{"question_id": "c", "la')
    index = ResultsIndex(path)
    assert list(index.rows()) == ["a", "b"]
    with open(path, "a") as f:  # the writer finishes the torn line, then re-judges a
        f.write('bel": null}\n' + line("a", False))
    rows = index.rows()
    assert list(rows) == ["a", "b", "c"] and rows["a"].label is False and rows["c"].label is None
    assert index.line("a") == json.loads(line("a", False))


def test_an_unterminated_but_whole_last_line_counts(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(line("a") + line("b").rstrip("\n"))
    assert list(ResultsIndex(path).rows()) == ["a", "b"]


def test_a_replaced_file_is_read_again(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(line("a") + line("b"))
    index = ResultsIndex(path)
    assert len(index.rows()) == 2
    tmp = tmp_path / "new.jsonl"
    tmp.write_text(line("z"))
    os.replace(tmp, path)  # an atomic rewrite: a new inode
    assert list(index.rows()) == ["z"]
    path.unlink()
    assert index.rows() == {}


def test_key_index_groups_offsets_by_case_with_and_without_the_fast_path(tmp_path):
    path = tmp_path / "decisions.jsonl"
    lines = [{"schema_version": 1, "case_id": "c1", "tool": "add_entry"},
             {"tool": "search", "args": {"case_id": "c2"}, "case_id": "c1"},  # not first: parsed
             {"case_id": 'c"2', "tool": "get_context"}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + "not json\n")
    index = KeyIndex(path, "case_id")
    assert len(index.offsets("c1")) == 2 and len(index.offsets('c"2')) == 1 and index.offsets("c2") == []


def test_catalog_ids_are_relative_paths_made_safe(tmp_path):
    root = tmp_path / "runs"
    for rel in ("r1", "r1/points/alpha=0.5", "r1/oracle", "group/r 2", "a/b/c/too-deep"):
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "results.jsonl").write_text("")
    catalog = Catalog([root])
    catalog.refresh()
    assert set(catalog.runs) == {"r1", "r1/points/alpha=0.5", f"group/{safe_name('r 2')}"}
    assert catalog.runs["r1/points/alpha=0.5"].parent == "r1"
    assert Catalog([root / "r1"]).run("r1") is not None  # a DIR that is itself a run


def test_safe_names():
    assert safe_name("q-1_abs.x=2") == "q-1_abs.x=2"
    for unsafe in ("..", "a/b", "%2e", "q 1", ""):
        name = safe_name(unsafe)
        assert "/" not in name and name.strip(".") and name != unsafe
    assert safe_name("a/b") != safe_name("a b")


def test_list_links_keep_filters_and_reset_the_page():
    query = ListQuery.of({"stage": "not_used", "page": "3", "sort": "bogus", "verdict": "maybe"})
    assert (query.sort, query.verdict, query.page) == ("id", "", 3)
    assert query.link(type="x") == "?type=x&stage=not_used"
    assert query.link(page=4) == "?stage=not_used&page=4"
    assert query.sort_link("id") == "?stage=not_used&desc=1"


def test_bundle_links_are_relative():
    here = bundle_path("question", "r1/points/p", "q/1")
    links = BundleLinks(here)
    assert here.startswith("runs/r1/points/p/questions/q_1-")
    assert links.index() == "../../../../../index.html"
    assert links.run("r2") == "../../../../r2/index.html"
    assert links.question("r1/points/p", "q/1") == Path(here).name
    assert Path(bundle_path("compare", "r1/points/p", "r2")).parts == ("compare", "r1~points~p", "r2.html")
