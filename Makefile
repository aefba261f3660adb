# mycelian-longmemeval: the two commands are `make run` (quickstart on the embedded defaults)
# and `make test` (the whole suite). Both install into .venv first when needed.
PYTHON ?= .venv/bin/python
VENV ?= .venv
CONFIG ?= configs/quickstart.toml
STAMP := $(VENV)/.installed
# Third-party MCP memory servers the presets are tested against, each in its own venv (their
# dependencies never meet ours): kuzu-memory 1.12.11 needs the MCP SDK 1.x.
SERVERS ?= .venv-servers
KUZU_STAMP := $(SERVERS)/kuzu/.installed
PYTEST_ARGS ?=
# Tests run in 2 worker processes (pytest-xdist): the suite is mostly waiting on servers and
# subprocesses, and 2 workers halve its wall time on the 2-core CI machine (pytest 17 min 21 s for 2,654 tests
# in the clean-clone CI of 62aa5da; --durations=30 prints the slowest tests at the end, so a slow one is seen).
# --dist loadfile keeps each test file on one worker: a module fixture that is a whole run (the Ray
# cluster, the fuzz reports, the quickstart) is built once. (--dist loadgroup with xdist_group marks did
# not group here with pytest-xdist 3.8: the marks stay, they name what must stay together.)
TEST_WORKERS ?= 2
FUZZ_ARGS ?=

CALIBRATE_CONFIG ?= configs/calibrate.toml
JUDGE_DATA ?= ../shared/data/judge
JUDGES ?=

.PHONY: install servers run calibrate lint test test-fast docs docs-serve bench bench-memory bench-embedders bench-loader bench-harness bench-generator bench-estimate bench-cache bench-presets bench-locomo bench-baselines bench-ray bench-tracing bench-view bench-beam bench-ingest grader-holdout fuzz clean-runs

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	# torch first: 2.13.0 has a local CPU wheel here; an unpinned torch would pull CUDA builds.
	$(PYTHON) -m pip install --quiet "torch==2.13.0"
	# ray: the optional Ray executor, installed here so `make test` runs its tests on a real cluster.
	$(PYTHON) -m pip install --quiet -e ".[embed,dev,ray]"
	touch $(STAMP)

servers: $(KUZU_STAMP)

$(KUZU_STAMP):
	test -x $(SERVERS)/kuzu/bin/python || python3 -m venv $(SERVERS)/kuzu
	$(SERVERS)/kuzu/bin/python -m pip install --quiet "kuzu-memory==1.12.11" "mcp>=1.20,<2"
	touch $(KUZU_STAMP)

run: install
	$(VENV)/bin/mycelian-longmemeval run $(CONFIG)

# The judge against published labels (docs/judging.md, "Calibrate the judge"): the deterministic grader over every labelled
# file in $(JUDGE_DATA); `make calibrate CALIBRATE_CONFIG=my_llm.toml JUDGES="--judge llm --judge official"` for the LLM judges.
calibrate: install
	$(VENV)/bin/mycelian-longmemeval calibrate $(CALIBRATE_CONFIG) \
		$(JUDGES) $(foreach f,$(wildcard $(JUDGE_DATA)/*.eval-results-*.jsonl),--labels $(f))

# ruff and mypy on both packages (the harness and the embedded memory service; configured in pyproject.toml); `make test` runs it before pytest.
lint: install
	$(PYTHON) -m ruff check benchmarker embedded_memory && $(PYTHON) -m mypy benchmarker embedded_memory

test: install servers lint
	$(PYTHON) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=30 $(PYTEST_ARGS)

test-fast: install
	$(PYTHON) -m pytest -q -m "not slow and not contract" $(PYTEST_ARGS)

# The documentation site (mkdocs.yml, pages in docs/; the README links into them): --strict fails on a broken
# link or anchor. `make test` builds it too (tests/test_docs_site.py). docs-serve: http://127.0.0.1:8000/.
docs: install
	$(VENV)/bin/mkdocs build --strict

docs-serve: install
	$(VENV)/bin/mkdocs serve

bench: bench-memory bench-embedders bench-harness bench-generator bench-loader bench-estimate bench-cache bench-presets bench-locomo bench-baselines bench-ray bench-tracing bench-view bench-beam bench-ingest

# Local vs Ray (2 workers) on a retrieval sweep with minilm; writes runs/bench/ray.json (issue 15).
bench-ray: install
	$(PYTHON) bench/bench_ray.py

# Tracing overhead per agent turn and judge-online over a traced project; runs/bench/tracing.json (issue 16).
bench-tracing: install
	$(PYTHON) bench/bench_tracing.py

# The run browser on a 500-question LongMemEval_S-like and a 1,986-question LoCoMo-like run: question list
# (target < 1 s) and question pages, timed over HTTP; writes runs/bench/view.json.
bench-view: install
	$(PYTHON) bench/bench_view.py

# BEAM at scale (issue 35): retrieval-only on one 500K and one 10M-size conversation (wall, peak RSS, writes/s,
# search latency); BEAM=path/to/a/BEAM/clone uses its real conversations, else built from ../shared's 128K ones.
BEAM ?= data/BEAM
bench-beam: install
	$(PYTHON) bench/bench_beam.py $(if $(wildcard $(BEAM)/chats),--clone $(BEAM),)

# Ingestion against its floor (issue 45): retrieval runs with write_batch = 0 and the default on LoCoMo size and a
# generated LongMemEval_S size, the one-process floor beside each, minilm texts/s; writes runs/bench/ingest.json.
bench-ingest: install
	$(PYTHON) bench/bench_ingest.py

# The deterministic grader on each ../shared/data/judge file: held out (the grader before its rules saw any of
# them, from a temporary git worktree) beside today's development fit; writes runs/bench/grader_holdout.json.
grader-holdout: install
	$(PYTHON) bench/grader_holdout.py

bench-locomo: install
	$(PYTHON) bench/bench_locomo.py

# The full-context baseline on a LoCoMo-sized run (10 conversations, ~1,990 questions), offline: wall time and
# peak RSS; writes runs/bench/baselines.json (issue 41).
bench-baselines: install
	$(PYTHON) bench/bench_baselines.py

bench-presets: install servers
	$(PYTHON) bench/bench_presets.py

bench-memory: install
	$(PYTHON) bench/bench_memory.py

bench-embedders: install
	$(PYTHON) bench/bench_embedders.py

bench-harness: install
	$(PYTHON) bench/bench_harness.py

bench-generator: install
	$(PYTHON) bench/bench_generator.py

bench-loader: install
	$(PYTHON) bench/bench_loader.py

bench-estimate: install
	$(PYTHON) bench/bench_estimate.py

bench-cache: install
	$(PYTHON) bench/bench_cache_run.py --unit message --unit session --lean

# Attack the embedded memory service (issue 12) and the harness: tool mappings, outside agents, damaged
# run directories (issue 26); writes runs/fuzz/fuzz.json. FUZZ_ARGS=--quick: CI size.
fuzz: install
	$(PYTHON) bench/fuzz_service.py $(FUZZ_ARGS)

clean-runs:
	rm -rf runs

include mk/stack.mk
