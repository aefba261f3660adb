# Memory stacks for the harness: Mycelian's real stack (docker compose) and the embedded service.
# Included by the top-level Makefile; every variable can be overridden on the command line.

PYTHON ?= .venv/bin/python
MYCELIAN_REPO ?= ../mycelian-memory
COMPOSE ?= docker compose
STACK_COMPOSE_FILE ?= docker-compose.yml
STACK_DOWN_FLAGS ?=
SEARCH_ALPHA ?= 0.6
OLLAMA_EMBED_MODEL ?= nomic-embed-text
MEMORY_HEALTH_URL ?= http://localhost:11545/v0/health
HEALTH_TIMEOUT ?= 180
MEMORY_MCP_URL ?= http://localhost:11546/mcp

EMBEDDED_HOST ?= 127.0.0.1
EMBEDDED_PORT ?= 11546
EMBEDDED_DB ?= .cache/embedded-memory.sqlite
EMBEDDED_PID ?= .cache/embedded-memory.pid
EMBEDDED_LOG ?= .cache/embedded-memory.log
EMBEDDED_TIMEOUT ?= 120
EMBEDDED_ARGS ?=

STACK = MYCELIAN_REPO=$(MYCELIAN_REPO) SEARCH_ALPHA=$(SEARCH_ALPHA) OLLAMA_EMBED_MODEL=$(OLLAMA_EMBED_MODEL) $(COMPOSE) -f $(STACK_COMPOSE_FILE)

.PHONY: check-mycelian-repo start-dev-mycelian-server start-mcp-streamable-server wait-backend-health \
        stop-mycelian start-embedded-memory stop-embedded-memory contract-test

check-mycelian-repo:
	@test -d "$(MYCELIAN_REPO)" || { echo "ERROR: MYCELIAN_REPO=$(MYCELIAN_REPO) is not a directory; clone https://github.com/mycelian-ai/mycelian-memory there or pass MYCELIAN_REPO=/path/to/clone" >&2; exit 2; }

## Postgres 16 (Mycelian schema), Weaviate, Ollama (+ nomic-embed-text), memory-service (11545), outbox worker
start-dev-mycelian-server: check-mycelian-repo
	$(STACK) up -d postgres weaviate ollama
	$(STACK) run --rm ollama-pull
	$(STACK) up -d --build memory-service outbox-worker
	@echo "memory-service starting on http://localhost:11545 (make wait-backend-health)"

## Mycelian's MCP server, streamable HTTP on http://localhost:11546/mcp (MCP_HTTP=true)
start-mcp-streamable-server: check-mycelian-repo
	$(STACK) up -d --build mcp-server
	@echo "MCP server: $(MEMORY_MCP_URL)"

## Wait until GET $(MEMORY_HEALTH_URL) reports healthy (HEALTH_TIMEOUT seconds)
wait-backend-health:
	$(PYTHON) -m embedded_memory.healthwait --url $(MEMORY_HEALTH_URL) --timeout $(HEALTH_TIMEOUT)

## Stop the Mycelian stack (STACK_DOWN_FLAGS=-v also deletes its volumes)
stop-mycelian:
	$(STACK) down $(STACK_DOWN_FLAGS)

## The embedded service in the background (pid $(EMBEDDED_PID), log $(EMBEDDED_LOG)). A non-loopback
## EMBEDDED_HOST needs an API key: export MEMORY_API_KEY (read from the environment, so `ps` never shows it);
## clients then send Authorization: Bearer $MEMORY_API_KEY. Other limits: EMBEDDED_ARGS="--max-body-bytes N ..."
start-embedded-memory:
	@mkdir -p $(sort $(dir $(EMBEDDED_PID)) $(dir $(EMBEDDED_LOG)) $(dir $(EMBEDDED_DB)))
	@if [ -f $(EMBEDDED_PID) ] && kill -0 $$(cat $(EMBEDDED_PID)) 2>/dev/null; then \
	  echo "embedded memory service already running (pid $$(cat $(EMBEDDED_PID)))"; \
	else \
	  nohup $(PYTHON) -m embedded_memory --host $(EMBEDDED_HOST) --port $(EMBEDDED_PORT) --db $(EMBEDDED_DB) $(EMBEDDED_ARGS) >> $(EMBEDDED_LOG) 2>&1 < /dev/null & echo $$! > $(EMBEDDED_PID); \
	  echo "started embedded memory service (pid $$(cat $(EMBEDDED_PID)), log $(EMBEDDED_LOG))"; \
	fi
	@$(PYTHON) -m embedded_memory.healthwait --url http://$(EMBEDDED_HOST):$(EMBEDDED_PORT)/v0/health --timeout $(EMBEDDED_TIMEOUT) --interval 0.5 --pid $$(cat $(EMBEDDED_PID)) \
	  || { tail -n 20 $(EMBEDDED_LOG) >&2; exit 1; }
	@echo "MCP: http://$(EMBEDDED_HOST):$(EMBEDDED_PORT)/mcp"

stop-embedded-memory:
	@if [ -f $(EMBEDDED_PID) ]; then \
	  pid=$$(cat $(EMBEDDED_PID)); \
	  if kill -0 $$pid 2>/dev/null; then \
	    kill $$pid; for i in $$(seq 1 50); do kill -0 $$pid 2>/dev/null || break; sleep 0.2; done; \
	    if kill -0 $$pid 2>/dev/null; then kill -9 $$pid; fi; \
	    echo "stopped embedded memory service (pid $$pid)"; \
	  else echo "embedded memory service was not running (stale pid file removed)"; fi; \
	  rm -f $(EMBEDDED_PID); \
	else echo "embedded memory service is not running (no $(EMBEDDED_PID))"; fi

## MCP contract tests against MEMORY_MCP_URL (empty: the tests start their own embedded service)
contract-test:
	MEMORY_MCP_URL=$(MEMORY_MCP_URL) $(PYTHON) -m pytest -m contract tests/embedded_memory/test_contract.py
