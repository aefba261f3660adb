"""The embedded, Mycelian-compatible memory service: MCP streamable HTTP at /mcp, SQLite, hybrid search.

    from embedded_memory.launcher import EmbeddedMemoryService
    from embedded_memory.settings import PLACEHOLDER_CONTEXT, ServiceSettings

    async with EmbeddedMemoryService(ServiceSettings(port=0, db_path="m.sqlite")) as svc:
        ...  # talk MCP to svc.mcp_url, exactly as to a real Mycelian stack

A top-level package of its own, beside `benchmarker`, so its fence is the package boundary: it imports
nothing of `benchmarker` (tests/test_import_graph.py checks every import and module-path string). What it
enforces it owns: Mycelian's limits (limits.py, re-exported as benchmarker.memory.limits), the title rule
(validation.py), the launcher lifeline (lifeline.py, re-exported as benchmarker.memory.lifeline), and the one
copy of the masking rules (masking.py; benchmarker.redact imports them). The harness imports the service,
never the reverse, and hands it settings: a `ServiceSettings` (the launcher passes it to the child as
`serve-memory` flags, `to_cli_args`, and the API key in MEMORY_API_KEY), or the same flags on the command line.

Importing this package is cheap: the server, torch and the embedders load only when used.
"""
