"""``colonnade serve`` speed over real HTTP: one-row latency and requests/s (one client,
then several concurrent client processes), and rows/s of 1,024-row requests. Prints
JSON lines.

    python benchmarks/serve.py [--requests 3000] [--clients 4] [--model linear|dnn]
                               [--workers N] [--export DIR] [--cases one_row,1024_rows]

A small model is trained on a few Adult columns, exported (or ``--export`` reuses one),
and served by ``python -m colonnade serve [--workers N]`` in its own process(es) on a
free port; clients use ``http.client`` with keep-alive. Each line also has the load
average at its end and the server's CPU seconds per request (all its processes, from
``/proc``). Targets (2 cores): one-row p50 <= 3 ms and >= 1,500 requests/s; 1,024-row
requests >= 150k rows/s.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

import colonnade as cn
from colonnade.demo import LABEL, LABEL_VOCABULARY, load_adult

fc = cn.feature_columns
NAME = "adult"
NUMERIC = ["age", "hours-per-week", "capital-gain"]
CATEGORICAL = ["workclass", "education", "occupation"]


def export_model(kind: str, root: str) -> str:
    train = load_adult("train")[NUMERIC + CATEGORICAL + [LABEL]].head(8000)
    cats = [fc.categorical_column_with_hash_bucket(c, 100) for c in CATEGORICAL]
    nums = [fc.numeric_column(c) for c in NUMERIC]
    config = cn.estimators.RunConfig(model_dir=os.path.join(root, "model"), tf_random_seed=0)
    if kind == "linear":
        est = cn.estimators.LinearClassifier(
            feature_columns=nums + cats, label_vocabulary=LABEL_VOCABULARY, config=config
        )
    else:
        est = cn.estimators.DNNClassifier(
            hidden_units=[32, 16],
            feature_columns=nums + [fc.embedding_column(c, 8) for c in cats],
            label_vocabulary=LABEL_VOCABULARY,
            config=config,
        )
    est.fit(train, label=LABEL, epochs=1, batch_size=256, verbose=0)
    return est.export_saved_model(os.path.join(root, "exports"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(export: str, port: int, workers: int = 1) -> subprocess.Popen:
    command = [sys.executable, "-m", "colonnade", "serve", export, "--port", str(port)]
    command += ["--model-name", NAME]
    if workers != 1:
        command += ["--workers", str(workers)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", f"/v1/models/{NAME}")
            if conn.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start")


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its children, alive or reaped
    (``/proc``, Linux; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return total
    return total + sum(server_cpu_seconds(c) for c in children)


def rows_body(n: int, seed: int = 0) -> bytes:
    test = load_adult("test")[NUMERIC + CATEGORICAL]
    rows = test.sample(n, replace=n > len(test), random_state=seed).to_dict("records")
    return json.dumps({"instances": rows}).encode()


def run_client(args) -> list:
    """Send ``count`` requests of ``body`` on one keep-alive connection; the latencies."""
    port, body, count = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    path = f"/v1/models/{NAME}:predict"
    headers = {"Content-Type": "application/json"}
    latencies = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        latencies.append(time.perf_counter() - start)
        if response.status != 200:
            raise RuntimeError(data.decode())
    conn.close()
    return latencies


def measure(case, port, body, rows, count, clients, server_pid) -> dict:
    run_client((port, body, max(10, count // 20)))  # warm up
    cpu = server_cpu_seconds(server_pid)
    start = time.perf_counter()
    if clients == 1:
        latencies = run_client((port, body, count))
    else:
        with multiprocessing.Pool(clients) as pool:
            parts = pool.map(run_client, [(port, body, count // clients)] * clients)
        latencies = [x for part in parts for x in part]
    elapsed = time.perf_counter() - start
    cpu = server_cpu_seconds(server_pid) - cpu
    ms = np.array(latencies) * 1000
    return {
        "case": case,
        "clients": clients,
        "rows_per_request": rows,
        "requests": len(latencies),
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p99_ms": round(float(np.percentile(ms, 99)), 3),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "rows_per_s": round(len(latencies) * rows / elapsed),
        "server_cpu_ms_per_request": round(cpu * 1000 / len(latencies), 3),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--model", choices=["linear", "dnn"], default="linear")
    parser.add_argument("--workers", type=int, default=1, help="server processes")
    parser.add_argument("--export", default=None, help="serve this export (no training)")
    parser.add_argument("--cases", default="one_row,1024_rows", help="comma-separated")
    args = parser.parse_args()
    if args.export is None:
        root = tempfile.mkdtemp(prefix="colonnade_serve_bench_")
        export = export_model(args.model, root)
    else:
        export = args.export
    port = free_port()
    server = start_server(export, port, args.workers)
    try:
        one, big = rows_body(1), rows_body(1024)
        big_count = max(20, args.requests // 30)
        cases = [
            ("one_row", one, 1, args.requests, 1),
            ("one_row", one, 1, args.requests, args.clients),
            ("1024_rows", big, 1024, big_count, 1),
            ("1024_rows", big, 1024, big_count, 2),
        ]
        wanted = args.cases.split(",")
        for case, body, rows, count, clients in cases:
            if case not in wanted:
                continue
            result = measure(case, port, body, rows, count, clients, server.pid)
            line = {"model": args.model, "workers": args.workers, **result}
            print(json.dumps(line), flush=True)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
