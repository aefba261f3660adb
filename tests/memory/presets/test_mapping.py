"""Tool mappings: presets load, user mappings are checked with errors naming the file and key,
templates render with types kept, results parse, and hits trace back to what was written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarker.errors import ConfigError
from benchmarker.memory.mapped import WrittenTexts, keywords, parse_hits, written_texts_of
from benchmarker.memory.tool_mapping import extract, extract_text, load_mapping, parse_mapping, preset_names, render

HERE = Path(__file__).parent


def test_every_shipped_preset_loads_and_names_its_tools():
    assert preset_names() == ["kuzu-memory", "mcp-server-memory", "mycelian"]
    assert load_mapping("mycelian").is_mycelian
    kg = load_mapping("mcp-server-memory")
    assert kg.required_tools() == ("create_entities", "search_nodes")
    assert kg.write_tools() == ("create_entities", "add_observations")
    assert kg.server.command == "npx" and kg.scope.kind == "process"
    kuzu = load_mapping("kuzu-memory")
    assert kuzu.search.result == "lines" and kuzu.search.empty == ("No memories found",)


def test_user_mapping_file_loads_relative_to_the_config(tmp_path):
    mapping = load_mapping("notes_mapping.toml", base_dir=HERE)
    assert mapping.scope.argument == "user_id" and mapping.source.endswith("notes_mapping.toml")
    with pytest.raises(ConfigError, match="no mapping file at .*missing.toml"):
        load_mapping("missing.toml", base_dir=tmp_path)


def test_unknown_preset_lists_the_shipped_ones():
    with pytest.raises(ConfigError, match=r"unknown preset 'mem0'.*kuzu-memory, mcp-server-memory, mycelian"):
        load_mapping("mem0")


@pytest.mark.parametrize("text, message", [
    ('name = "x"\n[write]\ntool = "w"\narguments = { t = "{txt}" }\n[search]\ntool = "s"\narguments = {}',
     r"write.arguments uses \{txt\}; allowed there: \{text\}"),
    ('name = "x"\n[write]\ntool = "w"\narguments = {}\n', r"a mapped server needs a \[write\] and a \[search\]"),
    ('name = "x"\n[write]\ntool = "w"\narguments = {}\n[search]\ntool = "s"\narguments = {}\nhits = "a..b"',
     r"search paths: 'a..b' is not a path"),
    ('name = "x"\n[scope]\nkind = "namespace"\n[write]\ntool = "w"\narguments = {}\n[search]\ntool = "s"\n'
     'arguments = {}', r"scope: .*names the argument"),
    ('name = "x"\nsearch_tool = "s"', r"search_tool: Extra inputs are not permitted"),
    ('name = ', r"not valid TOML"),
])
def test_a_broken_mapping_names_the_file_and_the_key(text, message):
    with pytest.raises(ConfigError, match=message) as err:
        parse_mapping(text, "my-mapping.toml")
    assert str(err.value).startswith("my-mapping.toml: ")


def test_a_container_scope_names_its_create_tool():
    text = 'name = "x"\n[scope]\nkind = "container"\n[write]\ntool = "w"\narguments = {}\n[search]\ntool = "s"\narguments = {}'
    with pytest.raises(ConfigError, match=r"scope: .*names the tool that creates one"):
        parse_mapping(text, "m.toml")


def test_a_namespace_scope_must_pass_the_scope_to_write_and_search():
    text = ('name = "x"\n[scope]\nkind = "namespace"\nargument = "user_id"\n[write]\ntool = "w"\n'
            'arguments = { text = "{text}" }\n[search]\ntool = "s"\narguments = { q = "{query}", user_id = "{scope}" }')
    with pytest.raises(ConfigError, match=r"write.arguments must pass \{scope\}"):
        parse_mapping(text, "m.toml")


def test_render_keeps_whole_placeholder_types_and_never_re_expands_values():
    template = {"limit": "{top_k}", "q": "find {query}", "nested": [{"obs": ["{text}"]}], "fixed": 3}
    out = render(template, {"top_k": 7, "query": "{text}", "text": "a {b} c"})
    assert out == {"limit": 7, "q": "find {text}", "nested": [{"obs": ["a {b} c"]}], "fixed": 3}


@given(st.text(), st.integers())
def test_render_substitutes_any_text_verbatim(text, number):
    assert render({"a": "{text}", "b": "<{text}>", "n": "{n}"}, {"text": text, "n": number}) == \
        {"a": text, "b": f"<{text}>", "n": number}


def test_paths_walk_tables_and_lists_and_tolerate_missing_keys():
    value = {"entities": [{"name": "a", "observations": ["x", "y"]}, {"name": "b"}]}
    assert extract(value, "entities[*].observations[*]") == ["x", "y"]
    assert extract(value, "entities[*].name") == ["a", "b"]
    assert extract(value, "nothing[*].here") == []
    assert extract_text(value["entities"][0], "observations") == "x\ny"


def test_json_hits_read_ids_texts_and_scores():
    mapping = load_mapping("notes_mapping.toml", base_dir=HERE)
    reply = json.dumps({"results": [{"id": "n2", "text": "cat Luna", "score": 0.5}, {"id": "n1", "text": "dog"}]})
    hits = parse_hits(mapping.search, reply)
    assert [(h.rank, h.id, h.text, h.score) for h in hits] == [(1, "n2", "cat Luna", 0.5), (2, "n1", "dog", None)]


def test_line_hits_keep_multi_line_texts_together_and_know_the_empty_reply():
    spec = load_mapping("kuzu-memory").search
    assert parse_hits(spec, "No memories found") == []
    hits = parse_hits(spec, "- first line\ncontinued\n- second")
    assert [h.text for h in hits] == ["first line\ncontinued", "second"]


def test_keywords_drop_question_words_and_put_rare_long_words_first():
    assert keywords("What is the name of my sister's new apartment in Denver?", 8) == \
        ["apartment", "sister's", "denver", "name", "new"]
    assert keywords("what?", 8) == ["what?"]


def test_hits_trace_to_the_message_whose_text_they_hold():
    mapping = load_mapping("mcp-server-memory")
    args = {"entities": [{"name": "s1 message 0", "entityType": "t", "observations": ["[2023] user: I adopted Luna"]}]}
    written = WrittenTexts()
    for text in written_texts_of(mapping, "create_entities", args):
        written.add(text, {"session_id": "s1", "turn_index": 0})
    assert written.trace("[2023] user: I adopted Luna")["session_id"] == "s1"
    assert written.trace("other\n[2023]  user: I adopted Luna\nmore")["turn_index"] == 0  # held inside, spaces normalised
    assert written.trace("something else") is None
    assert written_texts_of(mapping, "add_observations", {"observations": [{"entityName": "e", "contents": ["x"]}]}) == ["x"]
