"""The embedded, Mycelian-compatible memory service: MCP streamable HTTP at /mcp, SQLite, hybrid search.

    from benchmarker.memory.service.launcher import EmbeddedMemoryService
    from benchmarker.memory.service.settings import PLACEHOLDER_CONTEXT, ServiceSettings

    async with EmbeddedMemoryService(ServiceSettings(port=0, db_path="m.sqlite")) as svc:
        ...  # talk MCP to svc.mcp_url, exactly as to a real Mycelian stack

Importing this package is cheap: the server, torch and the embedders load only when used.
"""
