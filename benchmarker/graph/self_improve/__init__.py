"""The self-improve loop: EVAL -> ANALYZE -> PROPOSE -> CHALLENGE -> VOTE -> APPLY -> RE-EVAL -> DECIDE.

A LangGraph subgraph the run graph calls after the cases (`node.self_improve`). It changes only
what `allowlist.py` allows, always in copies under `<run_dir>/self_improve/candidates/`, and
keeps a change only when the held-out gain beats the noise (`decide.py`).
"""
