"""`mycelian-longmemeval view [DIR ...]`: flags -> a catalog of the run directories -> a local server or a
static bundle.

Binding anything but a loopback address needs a token (generated unless --token gives one): the pages
show dataset and model text and every file of a run, so anyone who can reach the port could read them.
"""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import socket
import sys
from pathlib import Path

from benchmarker.errors import UserError
from benchmarker.view.catalog import RUN_FILES, Catalog

DEFAULT_DIR = Path("runs")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7575
MIN_TOKEN = 16
MAX_PORT = 65535


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", type=Path, nargs="*", metavar="DIR",
                        help="run directories, or folders holding them (searched 3 levels deep; default: "
                             f"{DEFAULT_DIR}); with --bundle, only these go in, and runs named one after "
                             "another are compared in that order")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="bind address (default 127.0.0.1: this machine only; any other needs a token)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT}; 0: any free one)")
    parser.add_argument("--token", default=None,
                        help=f"require this token (at least {MIN_TOKEN} characters) on every request; generated when "
                             "--host is not a loopback address")
    parser.add_argument("--bundle", type=Path, default=None, metavar="OUT",
                        help="write the pages as a static site into OUT (new or empty) instead of serving them")


def run_view(args: argparse.Namespace) -> int:
    dirs = list(args.dirs) or [DEFAULT_DIR]
    for folder in dirs:
        if not folder.is_dir():
            raise UserError(f"view: {folder} is not a folder; give run directories or folders that hold them "
                            f"(default {DEFAULT_DIR})")
    catalog = Catalog(dirs)
    if args.bundle is not None:
        from benchmarker.view.bundle import chosen_pairs, write_bundle
        from benchmarker.view.links import bundle_path

        chosen = [d for d in dirs if any((d / name).is_file() for name in RUN_FILES)]
        pages = write_bundle(catalog, args.bundle, chosen)
        print(f"view: wrote {pages} pages to {args.bundle}; open {args.bundle / 'index.html'}")
        for a, b in chosen_pairs(catalog, chosen):
            print(f"view: {a} -> {b} compared in {args.bundle / bundle_path('compare', a, b)}")
        return 0
    sock, token, url = prepare(args)
    from benchmarker.view.server import create_app

    if token:
        # The one secret meant to be shown: printed past the masking stream (it would mask ?token=).
        print(f"view: {url}?token={token}", file=sys.__stdout__ or sys.stdout, flush=True)
    else:
        print(f"view: {url} (Ctrl-C stops it)", flush=True)
    import uvicorn

    config = uvicorn.Config(create_app(catalog, token), log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def prepare(args: argparse.Namespace) -> tuple[socket.socket, str | None, str]:
    """The listening socket, the token (None on a loopback bind without --token) and the URL to print: one
    whose Host the server answers (a loopback bind is named by its address, which the Host check accepts)."""
    if not 0 <= args.port <= MAX_PORT:
        raise UserError(f"view: --port {args.port} is not a port; give 1 to {MAX_PORT} (or 0: any free one)")
    sock, address, loopback = _bind(args.host, args.port)
    token = _token(args.token, loopback, sock)
    shown = args.host if args.host.lower() == "localhost" or not loopback else address
    host = f"[{shown}]" if ":" in shown else shown
    return sock, token, f"http://{host}:{sock.getsockname()[1]}/"


def _token(given: str | None, loopback: bool, sock: socket.socket) -> str | None:
    if given is None:
        return None if loopback else secrets.token_urlsafe(24)
    if len(given) < MIN_TOKEN:
        sock.close()
        reason = "a non-loopback --host needs a token" if not loopback else "a token must be hard to guess"
        raise UserError(f"view: --token is shorter than {MIN_TOKEN} characters; {reason} (leave --token out to get one)")
    return given


def _bind(host: str, port: int) -> tuple[socket.socket, str, bool]:
    """A socket bound to host:port (so a port in use is one clear error), the address bound and whether it
    is a loopback one."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as err:
        raise UserError(f"view: --host {host}: cannot resolve it ({err})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.bind(address)
    except OSError as err:
        sock.close()
        raise UserError(f"view: cannot listen on {host}:{port}: {err.strerror or err} "
                        "(is the port in use? try --port 0)") from None
    sock.listen(128)  # connections wait in the backlog until uvicorn serves: the printed URL works at once
    return sock, str(address[0]), ipaddress.ip_address(address[0]).is_loopback
