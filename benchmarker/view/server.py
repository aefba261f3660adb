"""The run browser's HTTP side: read-only GET routes over a `Site`.

Safety: without a token (loopback binds only) a request must name a loopback Host (localhost or a
loopback address such as 127.0.0.2 or [::1]), so a web page elsewhere cannot reach the pages through DNS
rebinding; with a token every request carries it (the query
parameter once, then an HttpOnly cookie) or gets 403. Every answer carries a Content-Security-Policy
that allows no inline script. Run ids and file names from the URL are looked up in the catalog and
the folders' listings, never joined to a path: anything else is 404.
"""

from __future__ import annotations

import ipaddress
from secrets import compare_digest

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from benchmarker.view.assets import media_type, static_files
from benchmarker.view.board import Leaderboard
from benchmarker.view.catalog import Catalog, Folder
from benchmarker.view.links import ServerLinks
from benchmarker.view.listing import ListQuery
from benchmarker.view.pages import Site

CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'"
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "Cache-Control": "no-store"}
COOKIE = "view_token"
LOOPBACK_NAMES = frozenset({"localhost"})  # and every loopback address, written as one


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[1:host.find("]")]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback_host(host: str) -> bool:
    """Whether a Host header names this machine: `localhost` or a loopback address (a DNS name an attacker
    controls is neither, whatever it resolves to)."""
    name = _hostname(host).lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Gate(BaseHTTPMiddleware):
    """The token (or, without one, a loopback Host) before any route; the security headers after."""

    def __init__(self, app: ASGIApp, token: str | None):
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        fresh = False
        if self.token is None:
            if not is_loopback_host(request.headers.get("host", "")):
                return _secured(PlainTextResponse("forbidden: this server answers to localhost only", 403))
        else:
            given = request.query_params.get("token")
            fresh = given is not None and compare_digest(given.encode(), self.token.encode())
            if not fresh and not compare_digest(request.cookies.get(COOKIE, "").encode(), self.token.encode()):
                return _secured(PlainTextResponse("forbidden: open the URL with ?token=... that `view` printed", 403))
        response = await call_next(request)
        if fresh:
            response.set_cookie(COOKIE, self.token or "", httponly=True, samesite="strict")
        return _secured(response)


def _secured(response: Response) -> Response:
    response.headers.update(HEADERS)
    return response


def _run_and_rest(catalog: Catalog, rest: str) -> tuple[Folder, str]:
    """The run a /runs/ path names (the longest id that prefixes it) and what follows it."""
    catalog.refresh()
    for run_id in sorted(catalog.runs, key=len, reverse=True):
        if rest == run_id or rest.startswith(run_id + "/"):
            return catalog.runs[run_id], rest[len(run_id) + 1:]
    raise HTTPException(404)


def create_app(catalog: Catalog, token: str | None = None) -> Starlette:
    """The ASGI app; `token` None only for a loopback bind (cli.run_view decides)."""
    site = Site(catalog)
    links = ServerLinks()
    leaderboard = Leaderboard(site)

    def index(request: Request) -> Response:
        return HTMLResponse(site.index_page(links))

    def runs(request: Request) -> Response:
        ref, rest = _run_and_rest(catalog, request.path_params["rest"])
        if rest in ("", "/"):
            return HTMLResponse(site.run_page(ref, ListQuery.of(request.query_params), links))
        kind, _, name = rest.partition("/")
        if kind == "questions" and (html := site.question_page(ref, name, links)) is not None:
            return HTMLResponse(html)
        if kind == "plots" and name in ref.names("plots", ".png") and (path := ref.file("plots", name)):
            return FileResponse(path, media_type="image/png")
        raise HTTPException(404)

    def compare_form(request: Request) -> Response:
        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        if catalog.run(a) is None or catalog.run(b) is None:
            raise HTTPException(404)
        return RedirectResponse(links.compare(a, b), status_code=303)

    def compare(request: Request) -> Response:
        rest = request.path_params["rest"]
        catalog.refresh()
        for i, char in enumerate(rest):
            a, b = catalog.runs.get(rest[:i]), catalog.runs.get(rest[i + 1:])
            if char == "/" and a and b:
                return HTMLResponse(site.compare_page(a, b, links))
        raise HTTPException(404)

    def calibration(request: Request) -> Response:
        ref = catalog.calibration(request.path_params["rest"].rstrip("/"))
        if ref is None:
            raise HTTPException(404)
        return HTMLResponse(site.calibration_page(ref, links))

    def board(request: Request) -> Response:
        return HTMLResponse(leaderboard.page(links))

    def board_plot(request: Request) -> Response:
        png = leaderboard.plot(request.path_params["name"])
        if png is None:
            raise HTTPException(404)
        return Response(png, media_type="image/png")

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in static_files():
            raise HTTPException(404)
        return Response(static_files()[name], media_type=media_type(name))

    routes = [Route("/", index), Route("/runs/{rest:path}", runs), Route("/compare", compare_form),
              Route("/compare/{rest:path}", compare), Route("/calibrations/{rest:path}", calibration),
              Route("/board", board), Route("/board/plots/{name}", board_plot), Route("/static/{name}", static)]
    return Starlette(routes=routes, middleware=[Middleware(Gate, token=token)])
