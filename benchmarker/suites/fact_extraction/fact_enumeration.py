"""The fact-enumeration judge's four lists, computed without a model (offline `judge-online`).

The online judge (suites/fact_extraction/fact_judge.py, prompts/fact_judge.txt) asks a model to list the facts the
user stated, the new facts in what the extractor wrote, the missed and the hallucinated ones; the
code then counts. Offline there is no model, so this module fills the same four lists the way
the offline suite matches facts: the user's sentences are the conversation facts, the written
entries' sentences the extracted facts (both minus what the memory already held), and a fact
counts as found when `suites/fact_extraction/facts.similarity` reaches `[eval.thresholds] fact_match`. A floor, like
every offline score: it cannot tell a paraphrase it has no words for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.suites.fact_extraction.data import new_facts, split_facts
from benchmarker.suites.fact_extraction.facts import similarity

SPEAKERS_WHO_STATE_FACTS = ("user",)


def enumerate_facts(conversation: Sequence[Mapping[str, str]], existing_memory: list[str], extracted: list[str], *,
                    thresholds: ThresholdsConfig | None = None,
                    speakers: tuple[str, ...] = SPEAKERS_WHO_STATE_FACTS) -> dict[str, list[str]]:
    """conversation_facts, extracted_facts, missed_facts, hallucinated_facts (the judge's JSON keys)."""
    thresholds = thresholds or ThresholdsConfig()
    stated = [fact for m in conversation if str(m.get("role", "")).lower() in speakers
              for fact in split_facts(str(m.get("content", "")))]
    conversation_facts = new_facts(stated, existing_memory)
    extracted_facts = new_facts([fact for item in extracted for fact in split_facts(item)], existing_memory)

    def found(fact: str, among: list[str], forward: bool) -> bool:
        return any((similarity(fact, other, thresholds=thresholds) if forward else
                    similarity(other, fact, thresholds=thresholds)) >= thresholds.fact_match for other in among)

    missed = [f for f in conversation_facts if not found(f, extracted_facts, forward=True)]
    hallucinated = [e for e in extracted_facts if not found(e, conversation_facts, forward=False)]
    return {"conversation_facts": conversation_facts, "extracted_facts": extracted_facts,
            "missed_facts": missed, "hallucinated_facts": hallucinated}
