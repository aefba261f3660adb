"""The fake BEAM clone's judge files: texts made up for the tests (never the repository's), and imports of
packages that are not installed, so the loader must read them with `ast` rather than run them."""

from __future__ import annotations

from pathlib import Path

FAKE_RUBRIC_PROMPT = "TEST PROMPT <question> item=<rubric_item> answer=<llm_response>"
FAKE_SYSTEM = "FAKE CLASSIFIER: reply YES or NO."
FAKE_PROMPTS_PY = f'''import nltk_not_installed  # proves the file is parsed, never imported

unified_llm_judge_base_prompt = """{FAKE_RUBRIC_PROMPT}"""
'''
FAKE_METRICS_PY = f'''import nltk_not_installed
from sentence_transformers_not_installed import SentenceTransformer
from scipy.stats import kendalltau


def llm_equivalence(first_paragraph: str, second_paragraph: str, llm) -> bool:
    system_msg = {{
        "role": "system",
        "content": """{FAKE_SYSTEM}"""
    }}
    user_msg = {{
        "role": "user",
        "content": f"""First: {{first_paragraph}} | Second: {{second_paragraph}}"""
    }}
    messages = [system_msg, user_msg]
    response = llm.invoke(messages).content.lower()
    return "yes" in response
'''


def fake_user_message(first: str, second: str) -> str:
    """The user message the fake `llm_equivalence` f-string makes of two snippets."""
    return f"First: {first} | Second: {second}"


def write_fake_clone(root: Path) -> Path:
    """A BEAM clone at `root` holding only src/prompts.py and src/evaluation/compute_metrics.py."""
    (root / "src" / "evaluation").mkdir(parents=True)
    (root / "src" / "prompts.py").write_text(FAKE_PROMPTS_PY, encoding="utf-8")
    (root / "src" / "evaluation" / "compute_metrics.py").write_text(FAKE_METRICS_PY, encoding="utf-8")
    return root
