"""No password or token from a URL in the config reaches a file the run writes or the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarker.cli import main
from benchmarker.redact import MASK, redact, redact_text, redact_url
from tests.run.test_run_inputs import _small

SECRET = "s3cr3t-Pw"


def test_userinfo_and_secret_query_values_are_masked_the_rest_kept() -> None:
    url = "https://alice:pw@llm.example.com:8443/v1/chat?api_key=abc&model=x&X-Amz-Signature=f00"
    assert redact_url(url) == f"https://{MASK}@llm.example.com:8443/v1/chat?api_key={MASK}&model=x&X-Amz-Signature={MASK}"
    assert redact_url("http://127.0.0.1:11546/mcp") == "http://127.0.0.1:11546/mcp"  # nothing to hide: unchanged
    assert redact_text("ConnectError: POST http://u:p@h/v1 failed (Bearer sk-0123456789abcdef)") == \
        f"ConnectError: POST http://{MASK}@h/v1 failed (Bearer {MASK})"
    assert redact({"password": "x", "api_key_env": "OPENAI_API_KEY", "urls": ["ftp://a:b@c"]}) == \
        {"password": MASK, "api_key_env": "OPENAI_API_KEY", "urls": [f"ftp://{MASK}@c"]}


_PART = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=6, max_size=20)


@given(user=_PART, password=_PART, token=_PART, before=st.text(max_size=30), after=st.text(max_size=30))
def test_no_credential_survives_redaction_in_free_text(user: str, password: str, token: str, before: str,
                                                       after: str) -> None:
    text = f"{before} https://{user}:{password}@host.example/v1?token={token}&q=1 {after}"
    cleaned = redact_text(text)
    assert f"{user}:{password}@" not in cleaned and f"token={token}" not in cleaned
    assert "host.example/v1" in cleaned


def _all_text(directory: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in directory.rglob("*")
                     if p.is_file() and p.suffix in (".json", ".jsonl", ".md", ".html", ".log", ".txt"))


def test_a_run_writes_no_url_password_anywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out, cfg = tmp_path / "data.json", tmp_path / "runs", tmp_path / "run.toml"
    data.write_text(json.dumps([_small("q1")]), encoding="utf-8")
    cfg.write_text(f"""
run_id = "secret"
dataset_file = "{data}"
[provider.openai]
base_url = "http://alice:{SECRET}@127.0.0.1:9/v1?api_key={SECRET}"
[memory]
embedder = "static"
[run]
output_dir = "{out}"
progress = false
""", encoding="utf-8")
    assert main(["run", str(cfg)]) == 0
    assert main(["report", str(out / "secret")]) == 0
    written = _all_text(out / "secret")
    manifest = json.loads((out / "secret" / "manifest.json").read_text())
    assert manifest["config"]["config"]["provider"]["openai"]["base_url"] == \
        f"http://{MASK}@127.0.0.1:9/v1?api_key={MASK}"
    assert SECRET not in written and SECRET not in "".join(capsys.readouterr())


def test_a_failing_mcp_url_with_a_password_is_not_echoed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out, cfg = tmp_path / "data.json", tmp_path / "runs", tmp_path / "run.toml"
    data.write_text(json.dumps([_small("q1")]), encoding="utf-8")
    cfg.write_text(f"""
run_id = "unreachable"
dataset_file = "{data}"
[memory]
backend = "mcp"
mcp_url = "http://bob:{SECRET}@127.0.0.1:9/mcp"
[run]
output_dir = "{out}"
progress = false
""", encoding="utf-8")
    assert main(["run", str(cfg)]) != 0
    printed = "".join(capsys.readouterr())
    assert "127.0.0.1:9" in printed and SECRET not in printed
    assert SECRET not in _all_text(out / "unreachable")


def test_the_process_credentials_are_masked_in_any_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCY")
    text = "agent stderr: using sk-live-0123456789 and wJalrXUtnFEMI/K7MDENG+bPxRfiCY (quoted wJalrXUtnFEMI%2FK7MDENG%2BbPxRfiCY)"
    assert redact_text(text) == f"agent stderr: using {MASK} and {MASK} (quoted {MASK})"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-rotated-99999999")  # a changed value is picked up, the old one forgotten
    assert redact_text("sk-rotated-99999999 sk-live-0123456789") == f"{MASK} sk-live-0123456789"


def test_short_values_and_paths_of_credential_variables_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value under 8 characters (`AUTH=true`, `DB_PASSWORD=test`) or a path (PWD, a credentials file) would
    mask ordinary words and every path of the run; it is not treated as a credential."""
    monkeypatch.setenv("MYCELIAN_AUTH", "true")
    monkeypatch.setenv("DB_PASSWORD", "test")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/home/me/creds.json")
    monkeypatch.setenv("PWD", "/work/some-long-directory")
    text = "true test /home/me/creds.json /work/some-long-directory/runs"
    assert redact_text(text) == text


@pytest.mark.parametrize("password", ["pa(ss)w'rd", "p/a/s/s", "p:a;s,s=1!$*", "päss wörd".replace(" ", "")])
def test_url_passwords_with_reserved_characters_are_masked(password: str) -> None:
    for text in (f"see http://bob:{password}@db.example:5432/x for details", f"'https://bob:{password}@h/'",
                 f'{{"url": "http://bob:{password}@h/v1"}}'):
        cleaned = redact_text(text)
        assert password not in cleaned and f"{MASK}@" in cleaned, cleaned


def test_secret_query_values_are_masked_whatever_they_hold() -> None:
    text = "GET /v1/chat?model=m&api_key=ab(c)/d+e=f:g%2F&token=t0k3n-value then http://h/x?sig=zz99 done"
    assert redact_text(text) == f"GET /v1/chat?model=m&api_key={MASK}&token={MASK} then http://h/x?sig={MASK} done"
    assert redact_text("http://host/users/@me?page=2") == "http://host/users/@me?page=2"  # no userinfo, nothing secret


async def test_an_outside_agent_that_prints_its_credentials_leaves_none_in_errors_jsonl(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's case: a subprocess agent printed its environment's key (and a URL with a password)
    on stderr, then died; the stderr tail went verbatim into errors.jsonl."""
    import sys

    from benchmarker.agent.adapters import AdapterError, SubprocessAgentAdapter, SubprocessAgentSettings
    from benchmarker.log.store import RunLog

    key = "sk-proj-Xq7vLp2Rt9Zm4Kw8"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    script = ("import os, sys; print('debug: OPENAI_API_KEY=' + os.environ['OPENAI_API_KEY'], "
              f"'base http://agent:{SECRET}@127.0.0.1:9/v1?api_key={SECRET}', file=sys.stderr, flush=True); sys.exit(3)")
    settings = SubprocessAgentSettings(command=sys.executable, args=["-c", script], name="leaky", timeout_s=5.0,
                                       close_grace_s=1.0)
    async with SubprocessAgentAdapter(settings) as agent:
        with pytest.raises(AdapterError, match="exited with code 3") as caught:
            await agent.answer("anything?")
    log = RunLog(tmp_path)
    log.log_error("case-1", caught.value)
    log.close()
    written = (tmp_path / "errors.jsonl").read_text(encoding="utf-8")
    assert "debug: OPENAI_API_KEY=***" in written and "127.0.0.1:9/v1" in written
    assert key not in written and SECRET not in written
