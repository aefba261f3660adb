"""Which benchmark a data file's record looks like, by its keys: a file given for the wrong `[dataset] kind`
fails with one line naming the kind it looks like, not with a field error on every record."""

from __future__ import annotations

from collections.abc import Iterable

# kind -> (its name in words, the keys a record of that benchmark's file has, how a config runs such a file)
SIGNATURES: dict[str, tuple[str, frozenset[str], str]] = {
    "longmemeval": ("LongMemEval", frozenset({"question_id", "question_type", "haystack_sessions", "answer"}),
                    'set [dataset] kind = "longmemeval" and name the file in the top-level `dataset_file`'),
    "locomo": ("LoCoMo", frozenset({"sample_id", "conversation", "qa"}),
               'set [dataset] kind = "locomo" and name the file in [dataset] file'),
    "beam": ("BEAM (Hugging Face export)", frozenset({"conversation_id", "chat", "probing_questions"}),
             'set [dataset] kind = "beam" and name the file in [dataset] file'),
}


def looks_like(keys: Iterable[str], expected: str) -> str:
    """'this looks like a LongMemEval file, not a LoCoMo one; set ...' when a record's keys hold most of another
    kind's, else ""."""
    present = set(keys)
    for kind, (name, signature, fix) in SIGNATURES.items():
        if kind != expected and len(present & signature) * 2 > len(signature):
            return f"this looks like a {name} file, not a {SIGNATURES[expected][0]} one; {fix}"
    return ""
