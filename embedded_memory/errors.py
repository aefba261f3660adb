"""Errors a caller can act on. Every message starts with the argument it is about."""

from __future__ import annotations


class ServiceError(Exception):
    """A bad request: the tool result gets isError and this message; the service keeps running."""

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message


class NotFoundError(ServiceError):
    """An id that names nothing (or names something in another vault)."""


class ConflictError(ServiceError):
    """A title that is already taken."""


class EmbedderError(RuntimeError):
    """The embedding backend failed (unreachable, bad answer, missing model or key)."""
