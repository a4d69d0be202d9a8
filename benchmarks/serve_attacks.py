"""``colonnade serve`` under attack: good one-row requests' p50 latency alone, then
while each attack runs (issue 29 #2). Prints JSON lines; goal: within 2x the baseline.

    python benchmarks/serve_attacks.py [--requests 200] [--attacks huge_example,...]

A small census model with a parsing serving input receiver (it takes serialized
tf.Examples) is exported and served by ``python -m colonnade serve`` in its own process
on a free localhost port, with the default budgets (docs/serving.md). Each attack runs
in a bounded loop on its own threads (at most 20 requests a second each) while one
client measures good requests:

- ``huge_example``: one tf.Example whose bytes_list holds 1,000,000 values (its parse
  takes ~30 s: stopped at the 10 s budget, 503);
- ``deep_nesting``: a number nested 1,000 lists deep (400);
- ``many_instances``: 1,000,000 instances (23 MB: 413 by Content-Length) and 400,000
  (9 MB: over the parse memory or row budget, 413);
- ``slow_client``: 20 connections sending their bodies a byte every 10 ms, then
  half-closing (each is answered);
- ``hostile_base64``: invalid base64 of 4 MB and valid base64 of 1 MB of random bytes;
- ``slowloris``: 1,100 connections each sending its headers a byte every 2 s (issue
  41: they locked every client out), reopened as the server cuts them (408 past the
  header deadline, or closed to make room past the connection cap);
- ``idle_connections``: 1,100 connections that send nothing, reopened when closed;
- ``graph_amplification``: against a second server, of an export whose serving graph
  makes 64 features of 8,192 values a row besides its one input (issue 41: the graph's
  bound was per node), requests of 1,000 rows (2^29 values, over 2 GB as float32) and
  10,000 rows: refused by the graph's request budget before it allocates (413), while
  the good requests are one-row requests to that server.

The server runs with an open-file limit of 1,024 (:data:`SERVER_FILES`), as in issue
41, so the connection attacks pass its connection cap.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.client
import json
import os
import resource
import selectors
import socket
import sys
import tempfile
import threading
import time

import numpy as np
import pyarrow as pa
from serve import NAME, free_port, start_server  # benchmarks/serve.py

import colonnade as cn

fc = cn.feature_columns
GOOD = json.dumps({"instances": [{"age": 41.0, "city": "rome"}]}).encode()
GOOD_GRAPH = json.dumps({"instances": [{"x": 41.0}]}).encode()
"""A good request to the amplifying export of ``graph_amplification``."""


def export_parsing_model(root: str) -> str:
    rng = np.random.default_rng(0)
    age = rng.integers(18, 80, 2000).astype(float)
    city = rng.choice(["paris", "rome", "oslo"], 2000)
    frame = {"age": age, "city": city, "y": ((age > 40) ^ (city == "rome")).astype(int)}
    columns = [
        fc.numeric_column("age"),
        fc.categorical_column_with_vocabulary_list("city", ["paris", "rome", "oslo"]),
    ]
    config = cn.estimators.RunConfig(model_dir=os.path.join(root, "model"), tf_random_seed=0)
    est = cn.estimators.LinearClassifier(feature_columns=columns, config=config)
    est.fit(pa.table(frame).to_pandas(), label="y", epochs=1, batch_size=256, verbose=0)
    spec = fc.make_parse_example_spec(columns)
    receiver = cn.estimators.export.build_parsing_serving_input_receiver_fn(spec)
    return est.export_saved_model(os.path.join(root, "exports"), receiver)


def export_amplifying_model(root: str, width: int = 8192, count: int = 64) -> str:
    """A regression on ``x`` whose serving graph also makes ``count`` features of
    ``width`` values a row that the model never reads: within every load-time cap."""
    tf = cn.compat.v1
    config = cn.estimators.RunConfig(model_dir=os.path.join(root, "graph_model"))
    est = cn.estimators.LinearRegressor([fc.numeric_column("x")], config=config)
    est.fit(pa.table({"x": [1.0, 2.0], "y": [3.0, 5.0]}).to_pandas(), label="y", verbose=0)

    def receiver_fn():
        x = tf.placeholder(tf.float32, [None], name="x")
        wide = tf.expand_dims(x, -1) + tf.constant(np.zeros(width, np.float32))
        features = {"x": x, **{f"w{i}": wide * float(i) for i in range(count)}}
        return cn.estimators.export.ServingInputReceiver(features, {"x": x})

    return est.export_saved_model(os.path.join(root, "graph_exports"), receiver_fn)


def post(port: int, body: bytes, timeout: float = 60) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", f"/v1/models/{NAME}:predict", body=body)
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return -1
    finally:
        conn.close()


def good_p50_ms(port: int, count: int, good: bytes = GOOD) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("POST", f"/v1/models/{NAME}:predict", body=good)
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        if response.status != 200:
            raise RuntimeError(f"a good request got {response.status}")
    conn.close()
    return float(np.median(times)) * 1e3


def serialized_example(root: str, n_values: int) -> bytes:
    path = os.path.join(root, "big.tfrecord")
    table = pa.table({"age": [30.0], "city": pa.array([["rome"] * n_values])})
    cn.io.write_tfrecord(table, path)
    (record,) = list(cn.io.tf_record_iterator(path))
    return record


def repeat(port: int, bodies: list, statuses: list, stop: threading.Event) -> None:
    """Send ``bodies`` in turn until stopped, 20 requests a second at most: an attack,
    not a flood (a flood of any request shares the server's CPU with the good ones)."""
    while not stop.is_set():
        for body in bodies:
            start = time.perf_counter()
            statuses.append(post(port, body))
            time.sleep(max(0.0, 0.05 - (time.perf_counter() - start)))


def slow_sender(port: int, statuses: list, stop: threading.Event) -> None:
    """Send a request's body a byte every 10 ms, then half-close; count the answers."""
    while not stop.is_set():
        head = (
            f"POST /v1/models/{NAME}:predict HTTP/1.1\r\nHost: x\r\n"
            f"Content-Length: {len(GOOD)}\r\n\r\n"
        ).encode()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
                conn.sendall(head)
                for i in range(len(GOOD)):
                    if stop.is_set():
                        return
                    conn.sendall(GOOD[i : i + 1])
                    time.sleep(0.01)
                conn.shutdown(socket.SHUT_WR)
                answer = conn.makefile("rb").readline()
                statuses.append(int(answer.split()[1]) if answer else -1)
        except OSError:
            statuses.append(-1)


SERVER_FILES = 1024
"""The server's open-file limit (issue 41's)."""
HELD = 1_100
"""Connections a connection attack holds open."""
OPENS_PER_SECOND = 200
"""How fast a connection attack opens connections (and reopens the ones cut)."""
CONNECTION_ATTACKS = ("slowloris", "idle_connections")
GRAPH_ATTACKS = ("graph_amplification",)
"""The attacks sent to the second server, of :func:`export_amplifying_model`."""


def hold_connections(port: int, statuses: list, stop: threading.Event, slow: bool) -> None:
    """Hold :data:`HELD` connections open; ``slow``: each sends its headers a byte every
    2 s (slowloris), else nothing. A connection the server cuts is counted (its status,
    or -1 for a close without one) and reopened."""
    head = f"POST /v1/models/{NAME}:predict HTTP/1.1\r\nHost: x\r\n".encode() * 50
    selector = selectors.DefaultSelector()
    sent: dict = {}  # socket -> header bytes sent

    def open_one() -> None:
        try:
            conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            statuses.append(-2)  # refused or timed out: the server's backlog is full
            return
        conn.setblocking(False)
        selector.register(conn, selectors.EVENT_READ)
        sent[conn] = 0

    def cut(conn, answer: bytes) -> None:
        statuses.append(int(answer.split()[1]) if answer.startswith(b"HTTP/") else -1)
        selector.unregister(conn)
        conn.close()
        del sent[conn]

    start = next_byte = time.monotonic()
    opened = 0
    try:
        while not stop.is_set():
            allowed = int((time.monotonic() - start) * OPENS_PER_SECOND) - opened
            while len(sent) < HELD and allowed > 0 and not stop.is_set():
                open_one()
                opened, allowed = opened + 1, allowed - 1
            for key, _ in selector.select(timeout=0.05):
                try:
                    answer = key.fileobj.recv(4096)
                except OSError:
                    answer = b""
                cut(key.fileobj, answer)
            if slow and time.monotonic() >= next_byte:
                next_byte = time.monotonic() + 2.0
                for conn, done in list(sent.items()):
                    try:
                        conn.send(head[done : done + 1])
                        sent[conn] = done + 1
                    except OSError:
                        cut(conn, b"")
    finally:
        for conn in list(sent):
            conn.close()
        selector.close()


def in_process(target, port: int, statuses: list, stop: threading.Event) -> None:
    """``target(port, statuses, stop)`` in a process of its own (its socket loop holds no
    GIL of the measuring client's), its statuses gathered when stopped."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    their_stop, queue = context.Event(), context.Queue()
    process = context.Process(target=_gathered, args=(target, port, their_stop, queue))
    process.start()
    stop.wait()
    their_stop.set()
    statuses.extend(queue.get(timeout=120))
    process.join(60)


def _gathered(target, port, stop, queue) -> None:
    statuses: list = []
    target(port, statuses, stop)
    queue.put(statuses)


def attacks(root: str) -> dict:
    """``{name: (threads, target, bodies)}``: each attack's loops."""
    huge = serialized_example(root, 1_000_000)
    many = json.dumps({"instances": [{"age": 1.0, "city": "rome"}] * 1_000_000}).encode()
    fewer = json.dumps({"instances": [{"age": 1.0, "city": "rome"}] * 400_000}).encode()
    nested = b'{"instances": [{"age": ' + b"[" * 1000 + b"30" + b"]" * 1000 + b', "city": "a"}]}'
    invalid = json.dumps({"instances": [{"b64": "A" * (4 << 20) + "!"}]}).encode()
    noise = base64.b64encode(os.urandom(1 << 20)).decode()
    return {
        "huge_example": (
            1,
            repeat,
            [json.dumps({"instances": [{"b64": base64.b64encode(huge).decode()}]}).encode()],
        ),
        "deep_nesting": (2, repeat, [nested]),
        "many_instances": (1, repeat, [many, fewer]),
        "slow_client": (20, slow_sender, None),
        "hostile_base64": (
            2,
            repeat,
            [invalid, json.dumps({"instances": [{"b64": noise}]}).encode()],
        ),
        "slowloris": (
            1,
            functools.partial(in_process, functools.partial(hold_connections, slow=True)),
            None,
        ),
        "idle_connections": (
            1,
            functools.partial(in_process, functools.partial(hold_connections, slow=False)),
            None,
        ),
        "graph_amplification": (
            2,
            repeat,
            [json.dumps({"instances": [{"x": 1.0}] * rows}).encode() for rows in (1000, 10_000)],
        ),
    }


def run_attack(port: int, name: str, plan: tuple, requests: int, good: bytes = GOOD) -> dict:
    """Good requests' p50 alone, then while ``plan``'s threads attack; one JSON line."""
    threads, target, bodies = plan
    baseline = good_p50_ms(port, requests, good)
    statuses, stop = [], threading.Event()
    extra = (bodies,) if bodies is not None else ()
    workers = [
        threading.Thread(target=target, args=(port, *extra, statuses, stop)) for _ in range(threads)
    ]
    for worker in workers:
        worker.start()
    # under way; a connection attack past the cap and its first header deadlines
    time.sleep(HELD / OPENS_PER_SECOND + 12.0 if name in CONNECTION_ATTACKS else 1.0)
    attacked = good_p50_ms(port, requests, good)
    stop.set()
    for worker in workers:
        worker.join(120)
    return {
        "attack": name,
        "good_p50_ms": round(baseline, 3),
        "good_p50_under_attack_ms": round(attacked, 3),
        "ratio": round(attacked / baseline, 2),
        "within_2x": attacked <= 2 * baseline,
        "attack_statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
        "load_average": round(os.getloadavg()[0], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="good requests a measure")
    parser.add_argument("--attacks", default="", help="comma-separated names (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        export = export_parsing_model(root)
        plans = attacks(root)
        wanted = [a for a in args.attacks.split(",") if a] or list(plans)
        exports = {"census": export}
        if any(name in GRAPH_ATTACKS for name in wanted):
            exports["graph"] = export_amplifying_model(root)
        ports = {kind: free_port() for kind in exports}
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(SERVER_FILES, hard), hard))
        servers = {}
        try:
            for kind, path in exports.items():
                servers[kind] = start_server(path, ports[kind])  # inherits the limit
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4 * HELD)), hard))
        try:
            good_p50_ms(ports["census"], 50)  # warm up
            if "graph" in ports:
                good_p50_ms(ports["graph"], 50, GOOD_GRAPH)
            for name in wanted:
                kind, good = ("graph", GOOD_GRAPH) if name in GRAPH_ATTACKS else ("census", GOOD)
                line = run_attack(ports[kind], name, plans[name], args.requests, good)
                print(json.dumps(line), flush=True)
        finally:
            for server in servers.values():
                server.kill()  # nothing of its state is kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
