"""Parameter-server training on Ray (issue 18): throughput and where the time goes.

CTR-like rows from ``benchmarks/ctr.py``'s generator (13 numerics, 26 Zipf categoricals
up to 500k values, written once to Parquet) train the wide&deep model of ``ctr.py``, one
pass, batch 1024, with ``RayStrategy`` on 1, 2 and 4 workers in sync and async mode, and
once in a single process for reference. One JSON line per run: examples/s over the
training (actor start-up is reported apart), bytes pulled and pushed per step, and each
worker-step's seconds split into input, compute (forward, backward, splitting gradients,
writing pulled rows), communication (the pull and push calls, which include the
servers' work) and waiting (for a step grant, and in sync mode for the other workers);
and the servers' own seconds per step gathering pulled rows and applying updates. Also
the most bytes one worker's table buffers held (``table_buffer_bytes``: the rows of its
largest step) beside the bytes of the model's whole tables (``whole_table_bytes``,
what each worker held before workers kept only a step's rows).

    python benchmarks/distributed.py [--rows 1000000] [--workers 1,2,4] [--modes sync,async]
                                     [--num-ps 2] [--model wide_deep]

``--project FILE`` instead reads those JSON lines and prints the projected throughput of
N workers at 10 Gbit/s from the one-worker async run (see ``project`` and
``docs/distributed.md``).

Actors are started by a short warm-up run per worker count first (a process importing
colonnade takes seconds), as a long job or ``fit``'s later epochs find them running.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

import ray  # noqa: E402
from ctr import BATCH, data_paths, make_model  # noqa: E402

import colonnade as cn  # noqa: E402
from colonnade.distribute.tables import network_tables  # noqa: E402


def dataset(path):
    return cn.data.Dataset.from_parquet(path, label="clicked").batch(BATCH)


def single(kind, train, rows) -> dict:
    model = make_model(kind, tempfile.mkdtemp(prefix="colonnade_dist_"))
    began = time.perf_counter()
    model.train(dataset(train), verbose=0)
    seconds = time.perf_counter() - began
    return {
        "mode": "single-process",
        "workers": 0,
        "rows": rows,
        "steps": model.global_step,
        "examples_per_s": round(rows / seconds),
        "train_s": round(seconds, 2),
    }


def with_strategy(kind, strategy):
    """``ctr.py``'s model, trained with ``strategy``."""
    model = make_model(kind, tempfile.mkdtemp(prefix="colonnade_dist_"))
    model.config = model.config.replace(train_distribute=strategy)
    return model


def distributed(kind, train, workers, num_ps, mode) -> dict:
    strategy = cn.distribute.RayStrategy(num_workers=workers, num_ps=num_ps, mode=mode)
    model = with_strategy(kind, strategy)
    model.train(dataset(train), verbose=0)
    run = model.last_run.as_dict()
    steps = max(run["steps"], 1)
    out = {
        "mode": mode,
        "workers": workers,
        "num_ps": num_ps,
        "rows": run["rows"],
        "steps": model.global_step,
        "examples_per_s": round(run["rows"] / run["train_s"]),
        "train_s": round(run["train_s"], 2),
        "start_s": round(run["start_s"], 2),
        "bytes_pulled_per_step": round(run["bytes_pulled"] / steps),
        "bytes_pushed_per_step": round(run["bytes_pushed"] / steps),
        "table_buffer_bytes": run["table_buffer_bytes"],
        "whole_table_bytes": whole_table_bytes(model),
    }
    for k in ("input_s", "compute_s", "communication_s", "waiting_s"):
        out[f"{k[:-2]}_ms_per_step"] = round(1000 * run[k] / steps, 2)
    for k in ("server_pull_s", "server_apply_s"):  # summed over the servers
        out[f"{k[:-2]}_ms_per_step"] = round(1000 * run[k] / steps, 2)
    return out


def whole_table_bytes(model) -> int:
    """Bytes of the values of the model's tables (the driver's copy)."""
    return sum(t.variable.value.nbytes for t in network_tables(model.model.network).values())


LINK_BYTES_PER_S = 10e9 / 8  # 10 Gbit/s
ROUND_TRIP_S = 0.2e-3  # one call's round trip in a data centre, Ray's overhead included


def project(run: dict, workers: int) -> dict:
    """Examples/s of ``workers`` workers on their own machines, from a measured run.

    A worker's step takes its compute plus input wait ``c``, its bytes pulled and
    pushed ``b`` over its link, three round trips (grant, pull, push) and the servers'
    work on its step spread over the ``P`` servers working in parallel; ``N`` workers
    give ``N`` times that, capped where the servers' links (``P`` links, ``b`` bytes a
    step) or the servers' CPU (each server does ``1/P`` of every step's server work)
    saturate. Python and Ray overheads inside the measured ``c`` and server times are
    kept; contention for this machine's two cores is not removed (so ``c`` is
    pessimistic)."""
    p, batch = run["num_ps"], run["rows"] / max(run["steps"], 1)
    c = (run["compute_ms_per_step"] + run["input_ms_per_step"]) / 1000
    b = run["bytes_pulled_per_step"] + run["bytes_pushed_per_step"]
    server = (run["server_pull_ms_per_step"] + run["server_apply_ms_per_step"]) / 1000
    step = c + b / LINK_BYTES_PER_S + 3 * ROUND_TRIP_S + server / p
    bounds = {
        "workers": workers * batch / step,
        "server_links": p * LINK_BYTES_PER_S / b * batch,
        "server_cpu": p / server * batch if server else float("inf"),
    }
    limit = min(bounds, key=bounds.get)
    return {
        "workers": workers,
        "num_ps": p,
        "step_ms": round(1000 * step, 2),
        "examples_per_s": round(bounds[limit]),
        "bound_by": limit,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--modes", default="sync,async")
    parser.add_argument("--num-ps", type=int, default=2)
    parser.add_argument("--model", default="wide_deep")
    parser.add_argument("--no-single", action="store_true")
    parser.add_argument("--project", metavar="FILE", help="project from a run's JSON lines")
    args = parser.parse_args()
    if args.project:
        with open(args.project) as f:
            runs = [json.loads(line) for line in f if line.strip()]
        base = next(r for r in runs if r["mode"] == "async" and r["workers"] == 1)
        for n in (1, 2, 4, 8, 16, 32, 64):
            print(json.dumps({"projection": "10 Gbit/s", **project(base, n)}))
        return
    train, _ = data_paths(args.rows)
    ray.init(include_dashboard=False, configure_logging=False, log_to_driver=False)
    if not args.no_single:
        print(json.dumps({"model": args.model, **single(args.model, train, args.rows)}), flush=True)
    warm = cn.data.Dataset.from_parquet(train, label="clicked").batch(BATCH)
    for workers in [int(w) for w in args.workers.split(",")]:
        for mode in args.modes.split(","):
            warmup = cn.distribute.RayStrategy(num_workers=workers, num_ps=args.num_ps, mode=mode)
            with_strategy(args.model, warmup).train(warm, steps=2, verbose=0)
            line = distributed(args.model, train, workers, args.num_ps, mode)
            print(json.dumps({"model": args.model, **line}), flush=True)


if __name__ == "__main__":
    main()
