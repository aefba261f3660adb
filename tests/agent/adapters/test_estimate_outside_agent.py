"""`estimate` on an outside agent prices only what the harness calls (the judge), and says so."""

from __future__ import annotations

import json

from benchmarker.cli import main


def test_estimate_for_an_outside_agent_costs_no_memory_agent_or_reader(tmp_path, capsys):
    path = tmp_path / "agent.toml"
    path.write_text('[dataset]\nkind = "sample"\nquestions_per_type = 1\n[agent]\ntype = "http"\n'
                    '[agent.http]\nbase_url = "http://127.0.0.1:9"\n[run]\noutput_dir = "runs"\n', encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["roles"]["agent"]["calls"] == 0 and data["roles"]["qa"]["calls"] == 0
    assert any("the agent is outside ([agent] type = 'http')" in a for a in data["assumptions"])
