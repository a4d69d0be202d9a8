"""The client error every part of the server raises: :class:`BadRequest`, answered
with its status and TF Serving's ``{"error": message}``."""

from __future__ import annotations

__all__ = ["BadRequest"]


class BadRequest(Exception):
    """A client error: answered with ``status`` (400 unless said) and ``{"error": message}``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status
