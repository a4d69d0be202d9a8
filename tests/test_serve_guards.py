"""The server's connection guards (issue 41), over real sockets: a client sending its
headers byte by byte is cut off (408), oversized headers get 431, a stalled body 408,
idle keep-alive connections are closed, and connections past the cap give way to a
good client, which is answered while slow and idle connections fill the server."""

import json
import socket
import threading
import time

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from test_serve import NAME, Client, train_export  # noqa: E402

from colonnade.serving import ModelStore, create_app  # noqa: E402
from colonnade.serving.limits import Limits  # noqa: E402
from colonnade.serving.protocol import connection_cap, uvicorn_options  # noqa: E402

GUARDS = Limits(
    header_seconds=1.0,
    body_seconds=1.0,
    keep_alive_seconds=1.0,
    max_header_bytes=8192,
    max_connections=20,
)
BODY = b'{"instances": [{"age": 41.0, "city": "rome"}]}'
HEAD = (
    f"POST /v1/models/{NAME}:predict HTTP/1.1\r\nHost: x\r\n"
    f"Content-Type: application/json\r\nContent-Length: {len(BODY)}\r\n\r\n"
).encode()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_guards")
    export = train_export(root / "model", root / "exports")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    store = ModelStore(export)
    app = create_app(store, NAME, limits=GUARDS)
    server = uvicorn.Server(uvicorn.Config(app, **uvicorn_options(GUARDS)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    yield {"port": sock.getsockname()[1], "server": server}
    server.should_exit = True
    thread.join(10)
    sock.close()


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def read_all(conn) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = conn.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def status_and_error(answer: bytes):
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]


def good_request(port):
    client = Client(port)
    try:
        return client.predict(json.loads(BODY))
    finally:
        client.conn.close()


def test_headers_sent_byte_by_byte_are_cut_off_with_408(guarded):
    with connect(guarded["port"]) as conn:
        start = time.monotonic()
        for byte in HEAD[:-4]:  # never ends its headers
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.05)
            if time.monotonic() - start > 5:
                break
        answer = read_all(conn)
        elapsed = time.monotonic() - start
    assert elapsed < 3, elapsed  # cut off near header_seconds, not after all the bytes
    status, error = status_and_error(answer)
    assert status == 408
    assert "headers not received within 1 s" in error


def test_a_connection_that_sends_nothing_is_closed_after_the_header_deadline(guarded):
    with connect(guarded["port"]) as conn:
        start = time.monotonic()
        assert read_all(conn) == b""
        assert 0.5 < time.monotonic() - start < 3


def test_headers_over_the_limit_get_431(guarded):
    big = HEAD.replace(b"Host: x\r\n", b"Host: x\r\nX-Pad: " + b"a" * 10_000 + b"\r\n")
    for chunks in ([big], [big[:9000], big[9000:]]):  # whole in one read, or in parts
        with connect(guarded["port"]) as conn:
            for chunk in chunks:
                try:
                    conn.sendall(chunk)
                except OSError:
                    break
            status, error = status_and_error(read_all(conn))
        assert status == 431
        assert "over the 8,192-byte limit" in error


def test_a_body_that_stops_arriving_gets_408(guarded):
    with connect(guarded["port"]) as conn:
        conn.sendall(HEAD + BODY[:10])
        start = time.monotonic()
        answer = read_all(conn)
        assert time.monotonic() - start < 3
    status, error = status_and_error(answer)
    assert status == 408
    assert "body not received within 1 s" in error


def test_an_idle_keep_alive_connection_is_closed(guarded):
    with connect(guarded["port"]) as conn:
        conn.sendall(HEAD + BODY)
        time.sleep(0.3)
        answer = conn.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        start = time.monotonic()
        assert read_all(conn) == b""  # then closed, with nothing more sent
        assert time.monotonic() - start < 3


def test_a_good_client_is_answered_while_slow_and_idle_connections_fill_the_server(guarded):
    cap = connection_cap(GUARDS)
    assert cap == 20
    hostile = []
    try:
        for i in range(3 * cap):  # idle ones, and slowloris ones that started their headers
            conn = connect(guarded["port"])
            if i % 2:
                conn.sendall(HEAD[:5])
            hostile.append(conn)
        time.sleep(0.2)
        for _ in range(5):
            status, answer = good_request(guarded["port"])
            assert status == 200, answer
        open_ = 0
        for conn in hostile:
            conn.setblocking(False)
            try:
                open_ += conn.recv(1) != b""  # b"": closed by the server to make room
            except BlockingIOError:
                open_ += 1  # still open, nothing sent
            except OSError:
                pass
        assert open_ <= cap, open_
    finally:
        for conn in hostile:
            conn.close()


def test_limits_refuse_guards_that_are_not_positive():
    with pytest.raises(ValueError, match="header_seconds must be a positive number"):
        Limits(header_seconds=0)
    with pytest.raises(ValueError, match="max_connections must be a whole number >= 1"):
        Limits(max_connections=0)
