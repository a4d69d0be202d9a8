"""The HTTP protocol the server runs: uvicorn's httptools protocol, answering a client
that half-closes its connection after its request.

A client may send its request and then shut down its side for writing (``shutdown(fd,
SHUT_WR)``, what ``curl --no-keepalive`` pipelines and some load balancers do): the
request is whole, and the client still reads. asyncio closes a transport whose protocol
does not ask to keep it open on end-of-file, so uvicorn's protocol dropped the answer.
This one keeps the connection open for writing while a complete request is being
answered, and closes it once the answer is sent.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["HalfCloseHttpProtocol", "uvicorn_options"]


class HalfCloseHttpProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that answers a request whose client half-closed."""

    half_closed = False

    def eof_received(self) -> bool | None:
        cycle = self.cycle
        if cycle is not None and not cycle.more_body and not cycle.response_complete:
            self.half_closed = True
            return True  # keep the transport open to write the answer
        return None  # nothing in flight: close, as before

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)  # requests sent before the end-of-file: answered too
        super().on_response_complete()
        if self.half_closed and not pipelined and not self.transport.is_closing():
            self.transport.close()


def uvicorn_options() -> dict:
    """The ``uvicorn.Config`` options every colonnade server uses."""
    return {"http": HalfCloseHttpProtocol, "access_log": False, "log_level": "warning"}
