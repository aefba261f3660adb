"""What the online tests share: a small offline agent-mode run (2 cases of the generated sample)."""

SMALL_RUN = """
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
limit = 2
concurrency = 2
progress = false
output_dir = "runs"
"""
