"""The ASGI app: MCP streamable HTTP at /mcp plus Mycelian's REST health and search routes.

    GET  /v0/health   {"status": "healthy", ...}  (what `make wait-backend-health` polls)
    POST /v0/search   {"memoryId", "query", "topK", "alpha"?} -> search_memories' JSON

Around every route, outermost first: Host/Origin checks, the bearer key (when set; health is
public), the body cap, the JSON parse check and the tool-argument check (security.py,
limits_http.py, finite_args.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from embedded_memory.errors import NotFoundError, ServiceError
from embedded_memory.limits_http import BodyGuard, ProtocolGuard
from embedded_memory.security import BearerAuth, HostOriginGuard
from embedded_memory.service import MemoryService
from embedded_memory.settings import ServiceSettings
from embedded_memory.tools import build_mcp

log = logging.getLogger(__name__)


def _rest_routes(svc: MemoryService) -> list[Route]:
    async def health(_: Request) -> JSONResponse:
        return JSONResponse(svc.health())

    async def search(request: Request) -> JSONResponse:
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            return JSONResponse({"error": "body: expected a JSON object {memoryId, query, topK}"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "body: expected a JSON object {memoryId, query, topK}"}, status_code=400)
        try:
            result = await svc.search(body.get("memoryId"), body.get("query"), body.get("topK"), body.get("alpha"))
        except NotFoundError as err:
            return JSONResponse({"error": _rest_names(str(err))}, status_code=404)
        except ServiceError as err:
            return JSONResponse({"error": _rest_names(str(err))}, status_code=400)
        return JSONResponse(result)

    return [Route("/v0/health", health, methods=["GET"]), Route("/v0/search", search, methods=["POST"])]


def _rest_names(message: str) -> str:
    """REST callers send camelCase keys: name them that way in errors."""
    for snake, camel in (("memory_id:", "memoryId:"), ("top_k:", "topK:")):
        if message.startswith(snake):
            return camel + message[len(snake):]
    return message


def build_app(svc: MemoryService) -> Starlette:
    """The service's ASGI app; its lifespan resumes indexing and closes everything at shutdown."""
    mcp = build_mcp(svc)
    mcp_app = mcp.streamable_http_app()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        resumed = await svc.start()
        if resumed:
            log.warning("resuming: %d rows were stored but not yet indexed", resumed)
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            await svc.close()

    return Starlette(routes=[*_rest_routes(svc), *mcp_app.routes], lifespan=lifespan,
                     middleware=_guards(svc.settings))


def _guards(settings: ServiceSettings) -> list[Middleware]:
    host_check = Middleware(HostOriginGuard, bound_host=settings.host, allowed_hosts=settings.allowed_hosts,
                            allowed_origins=settings.allowed_origins)
    auth = [Middleware(BearerAuth, api_key=settings.api_key)] if settings.api_key else []
    return [Middleware(ProtocolGuard), host_check, *auth, Middleware(BodyGuard, max_bytes=settings.max_body_bytes)]
