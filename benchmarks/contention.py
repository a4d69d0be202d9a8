"""Training speed on a busy machine: colonnade's own BLAS thread choice against fixed ones.

Starts one busy-loop process per core (each stops by itself after ``--busy-seconds``,
and all are stopped at the end), then trains ``ctr.py``'s DNN and wide&deep at batch
1,024 and its wide&deep at batch 32 for a fixed number of steps, each in a fresh process,
once with colonnade's default and once per fixed count (``COLONNADE_BLAS_THREADS=n``,
1 up to the cores; the count of cores is what OpenBLAS uses by default), alternating
the settings ``--repeats`` times. Prints one JSON line per run (with how many products
ran on each thread count), then per model the
default's median rows/s over the best fixed setting's. ``--quiet`` runs the same without
the busy loops.

    python benchmarks/contention.py [--repeats 2] [--steps 100] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time

JOBS = {"dnn": 1024, "wide_deep": 1024, "wide_deep_b32": 32}
WARMUP_STEPS = 10


def busy_loop(seconds: float, parent: int) -> None:
    """Spin on one core (a neighbour's job on a shared machine) for ``seconds``, or
    until the process ``parent`` that started it is gone."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and os.getppid() == parent:
        for _ in range(100_000):
            pass


def measure(job: str, steps: int) -> dict:
    """Rows/s of ``steps`` training steps of ``job`` after a warm-up, in this process."""
    import ctr

    import colonnade as cn

    chosen = count_thread_choices(cn.core.threads)
    batch = JOBS[job]
    train, _ = ctr.data_paths(250_000)
    needed = ctr.training_columns()
    table = cn.data.Dataset.from_parquet(train, columns=needed).to_table()
    with tempfile.TemporaryDirectory(prefix=f"contention_{job}_") as model_dir:
        model = ctr.make_model(job.removesuffix("_b32"), model_dir)
        warm = cn.data.Dataset.from_arrow(table.slice(0, batch * WARMUP_STEPS), label="clicked")
        model.train(lambda: warm.batch(batch), verbose=0)
        timed = cn.data.Dataset.from_arrow(
            table.slice(batch * WARMUP_STEPS, batch * steps), label="clicked"
        )
        start = time.perf_counter()
        model.train(lambda: timed.batch(batch).prefetch(2), verbose=0)
        seconds = time.perf_counter() - start
    return {
        "rows_per_s": round(batch * steps / seconds),
        "seconds": round(seconds, 2),
        "products_by_threads": {str(k): chosen[k] for k in sorted(chosen)},
    }


def count_thread_choices(threads) -> dict:
    """Count, per thread count, the products ``threads.threads_for`` sizes from now on:
    which counts the default actually chose in a run."""
    chosen = {}
    choose = threads.threads_for

    def counted(flops):
        count = choose(flops)
        chosen[count] = chosen.get(count, 0) + 1
        return count

    threads.threads_for = counted
    return chosen


def run_one(job: str, steps: int, threads) -> dict:
    """``measure`` in a fresh process with ``COLONNADE_BLAS_THREADS`` set to ``threads``
    (None: colonnade's default)."""
    env = dict(os.environ)
    env.pop("COLONNADE_BLAS_THREADS", None)
    if threads is not None:
        env["COLONNADE_BLAS_THREADS"] = str(threads)
    command = [sys.executable, __file__, "--measure", job, "--steps", str(steps)]
    out = subprocess.run(command, env=env, check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument("--quiet", action="store_true", help="no busy loops")
    parser.add_argument(
        "--fixed", help="the fixed counts to compare with, e.g. 1,2 (default: 1 to the cores)"
    )
    parser.add_argument("--busy-seconds", type=float, default=3600)
    parser.add_argument("--measure", metavar="JOB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.steps)), flush=True)
        return
    cores = os.cpu_count()
    fixed_counts = range(1, cores + 1)
    if args.fixed:
        fixed_counts = [int(t) for t in args.fixed.split(",")]
    settings = [None, *fixed_counts]
    loops = []
    if not args.quiet:
        loops = [
            multiprocessing.Process(
                target=busy_loop, args=(args.busy_seconds, os.getpid()), daemon=True
            )
            for _ in range(cores)
        ]
        for p in loops:
            p.start()
    results = {}
    try:
        for job in args.jobs.split(","):
            steps = args.steps if JOBS[job] > 100 else args.steps * 3
            for repeat in range(args.repeats):
                for threads in settings if repeat % 2 == 0 else settings[::-1]:
                    line = run_one(job, steps, threads)
                    line = {
                        "bench": "contention",
                        "job": job,
                        "busy_loops": len(loops),
                        "blas_threads": "default" if threads is None else threads,
                        **line,
                        "load": round(os.getloadavg()[0], 2),
                    }
                    print(json.dumps(line), flush=True)
                    results.setdefault((job, line["blas_threads"]), []).append(line["rows_per_s"])
            medians = {t: statistics.median(v) for (j, t), v in results.items() if j == job}
            fixed = {t: v for t, v in medians.items() if t != "default"}
            best = max(fixed, key=fixed.get)
            summary = {
                "bench": "contention_summary",
                "job": job,
                "busy_loops": len(loops),
                "default_rows_per_s": medians["default"],
                "best_fixed_threads": best,
                "best_fixed_rows_per_s": fixed[best],
                "default_over_best": round(medians["default"] / fixed[best], 3),
            }
            if cores in fixed:  # OpenBLAS's own default: a thread per core
                summary["default_over_openblas_default"] = round(
                    medians["default"] / fixed[cores], 3
                )
            print(json.dumps(summary), flush=True)
    finally:
        for p in loops:
            p.terminate()
            p.join()


if __name__ == "__main__":
    main()
