"""The first JSON object in a model reply: properties over generated objects and wrappings."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarker.scoring.json_reply import first_json_object, json_objects

# Strings full of what confuses a regex: braces, quotes, backslashes, fences, newlines.
TEXT = st.lists(st.sampled_from(list('ab {}[]":,\\`\n') + ["```", "é"]), max_size=8).map("".join)
SCALARS = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=8)
OBJECTS = st.dictionaries(TEXT, VALUES, min_size=1, max_size=4)
PROSE = st.text(alphabet=st.characters(blacklist_characters="{", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(OBJECTS, PROSE, st.text(max_size=40), st.sampled_from([None, 2]), st.booleans())
def test_an_object_in_prose_is_found(obj, before, after, indent, ascii_only):
    reply = before + json.dumps(obj, indent=indent, ensure_ascii=ascii_only) + after
    assert first_json_object(reply) == obj


@settings(max_examples=200, deadline=None)
@given(OBJECTS, PROSE, st.sampled_from(["json", "JSON", ""]))
def test_a_fenced_object_wins_over_a_decoy_in_the_prose(obj, prose, lang):
    reply = f'{prose} e.g. {{"decoy": true}} then:\n```{lang}\n{json.dumps(obj, indent=2)}\n```\nDone {{'
    assert first_json_object(reply) == obj


@settings(max_examples=200, deadline=None)
@given(OBJECTS, PROSE)
def test_an_object_wrapped_in_another_is_found_by_its_keys(obj, prose):
    wanted = {"score": 0.5, "payload": obj}
    reply = prose + json.dumps({"audit": {"notes": [wanted]}})
    assert first_json_object(reply, lambda o: "score" in o) == wanted
    found = list(json_objects(reply))
    assert found[0] == {"audit": {"notes": [wanted]}} and wanted in found  # outer before inner


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_an_object_or_none(text):
    found = first_json_object(text)
    assert found is None or isinstance(found, dict)


def test_replies_judges_send():
    assert first_json_object('Sure! ```json\n{"score": 0.9, "reason": "has } and {"}\n```') == \
        {"score": 0.9, "reason": "has } and {"}
    assert first_json_object("no json here") is None
    assert first_json_object('```json\n{"a": [1,]}\n```') is None  # malformed: nothing, not a crash
    assert first_json_object('{"score": 7} then {"score": 0.4}', lambda o: o["score"] <= 1) == {"score": 0.4}
