"""No credential leaves the process: random secrets (credential-looking environment variables, URL
passwords, `api_key=` query values, bearer tokens) are pushed through every writer (the run log's
files, the JSON and text writers, logging, the terminal, progress, the CLI error boundary and the
trace payloads) and none of them may appear in a file written or on stdout / stderr."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from benchmarker.agent.tracing import scrub_run
from benchmarker.cli_errors import run_verb
from benchmarker.errors import UserError
from benchmarker.graph.progress import RunProgress
from benchmarker.log.jsonl import JsonlWriter, write_json_atomic, write_text_atomic
from benchmarker.log.records import AnswerRecord, DecisionRecord
from benchmarker.log.store import RunLog
from benchmarker.redact import MASK, MIN_SECRET_LEN, redacted_terminal

CREDENTIAL_VARS = ("OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "LANGSMITH_API_KEY", "MYCELIAN_TEST_TOKEN",
                   "DB_PASSWORD")
# What a credential is made of: letters, digits and the punctuation real keys use (sk-..., AWS keys with
# '/' and '+', base64 '='); a URL password also takes RFC 3986 sub-delims and ':'.
_KEY_CHARS = st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-_.~+/=")
_PASSWORD_CHARS = st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-_.~!$&'()*+,;=:%")
_QUERY_CHARS = st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-_.~+/=:%")
env_value = st.text(_KEY_CHARS, min_size=MIN_SECRET_LEN, max_size=40).filter(lambda v: not v.startswith("/"))
password = st.text(_PASSWORD_CHARS, min_size=6, max_size=30)
query_value = st.text(_QUERY_CHARS, min_size=6, max_size=30)
bearer = st.text(st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=12, max_size=40)


class _ModelLike(BaseModel):
    """What middleware inputs carry: a model object whose dump holds its base URL."""

    openai_api_base: str
    note: str


def _written(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*") if p.is_file())


def _through_every_writer(root: Path, blob: str, url: str) -> None:
    log = RunLog(root)
    log.append(AnswerRecord(case_id="c1", question_id="q1", question=blob, hypothesis=blob, answer=blob))
    log.append(DecisionRecord(case_id="c1", caller="agent", tool="add_entry", args={"summary": blob, "url": url},
                              result_preview=blob, error=blob))
    log.log_error("c1", RuntimeError(f"agent exited; last stderr lines:\n{blob}"))
    log.write_manifest({"config": {"provider": {"base_url": url}}, "agent": {"command": ["agent", blob]}})
    log.close()
    writer = JsonlWriter(root / "other.jsonl")
    writer.write({"text": blob, "nested": [{"url": url}]})
    writer.close()
    write_json_atomic(root / "summary.json", {"notes": [blob], "endpoint": url})
    write_text_atomic(root / "report.md", f"# report\n\n{blob}\n{url}\n")

    logger = logging.getLogger("benchmarker.test_no_secret_leaves")
    logger.warning("agent said %s via %s", blob, url)
    try:
        raise RuntimeError(blob)
    except RuntimeError:
        logger.exception("failed at %s", url)
    print(f"stdout: {blob} {url}")
    print(f"stderr: {blob} {url}", file=sys.stderr)
    RunProgress(2, enabled=True, stats=dict).question_done(f"case {blob}")
    assert run_verb(lambda: (_ for _ in ()).throw(UserError(f"cannot reach {url}: {blob}"))) == 2

    run = {"name": "ChatOpenAI", "run_type": "llm", "error": blob,
           "inputs": {"request": {"model": _ModelLike(openai_api_base=url, note=blob)}},
           "serialized": {"kwargs": {"openai_api_base": url, "openai_api_key": {"lc": 1, "type": "secret"}}},
           "extra": {"invocation_params": {"base_url": url}, "metadata": {"note": blob}},
           "events": [{"name": "error", "message": blob}], "outputs": {"text": blob}}
    (root / "trace.json").write_text(json.dumps(scrub_run(run), default=str), encoding="utf-8")


def _shown(env: dict[str, str], blob: str, url: str) -> dict[str, str]:
    """What the writers put in files, on stdout / stderr and in the log, with `env` set for the call."""
    out, err, logged = io.StringIO(), io.StringIO(), io.StringIO()
    handler = logging.StreamHandler(logged)
    root_logger = logging.getLogger()
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        stack.callback(lambda: [os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
                                for k, v in saved.items()])
        root_logger.addHandler(handler)
        stack.callback(root_logger.removeHandler, handler)
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        with redacted_terminal():
            _through_every_writer(Path(folder), blob, url)
        written = _written(Path(folder))
    return {"files": written, "stdout": out.getvalue(), "stderr": err.getvalue(), "logging": logged.getvalue()}


@functools.cache
def _scaffolding() -> str:
    """Everything the writers show around the secrets (paths, code lines, keys): a generated "secret"
    that is part of it (`longme` of the checkout's path) is not a leak."""
    return "\n".join(_shown({}, "placeholder", "http://127.0.0.1:9/v1?model=m").values())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.sampled_from(CREDENTIAL_VARS), min_size=1, max_size=3, unique=True),
       values=st.lists(env_value, min_size=3, max_size=3), pw=password, query=query_value, token=bearer)
def test_no_random_secret_reaches_a_file_or_the_terminal(names: list[str], values: list[str], pw: str, query: str,
                                                         token: str) -> None:
    env = dict(zip(names, values, strict=False))
    url = f"http://alice:{pw}@127.0.0.1:9/v1?model=m&api_key={query}"
    blob = " | ".join([*(f"{k}={v}" for k, v in env.items()), f"base {url}", f"Authorization: Bearer {token}"])
    secrets = [*env.values(), pw, query, token]
    fixed = " | ".join([*names, "base http://alice:@127.0.0.1:9/v1?model=m&api_key=", "Authorization: Bearer "])
    # a generated "secret" that is part of the fixed text around it (e.g. "Authorizatio") is not a leak
    assume(not any(secret in _scaffolding() or secret in fixed for secret in secrets))
    shown = _shown(env, blob, url)
    for where, text in shown.items():
        leaked = [s for s in secrets if s in text]
        assert not leaked, f"{leaked} reached {where}"
    assert all(MASK in text for text in shown.values())
    assert "127.0.0.1:9/v1" in shown["files"]  # masking leaves the rest readable
