"""``parse_example`` on one record holding a long list: colonnade vs TensorFlow 2.15.

Issue 41 measured one 1M-value bytes list taking 52 s to parse, a Python-speed step per
value. Here one ``tf.Example`` with a single feature ``x`` holding 1, 1k, 100k or 1M
values is parsed as a ``VarLenFeature``, for each list kind:

- ``bytes``: the values ``b"v0"``, ``b"v1"``, ... (a field per value on the wire);
- ``int64``: ``0, 1, 2, ...`` times a large odd number (multi-byte varints, packed);
- ``float``: ``0.5, 1.5, ...`` (packed float32).

Each case prints one JSON line: the library, kind, values, record bytes and the best of
``--repeats`` wall-clock times (seconds), with the 1-minute load average when it ran.
TensorFlow's ``tf.io.parse_example`` on the same bytes is timed beside it when
``tensorflow`` imports in this interpreter, or in the interpreter ``--tf-python`` names
(a subprocess; e.g. ``/tmp/tfenv/bin/python``). Usage::

    python benchmarks/parse_example.py [--repeats 3] [--sizes 1,1000,100000,1000000]
        [--tf-python /tmp/tfenv/bin/python]

Needs colonnade importable (``pip install -e .``, or run from the repository root).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

KINDS = ("bytes", "int64", "float")
SIZES = (1, 1_000, 100_000, 1_000_000)


def values(kind: str, n: int):
    """The ``n`` values of a ``kind`` list."""
    if kind == "bytes":
        return [b"v%d" % i for i in range(n)]
    if kind == "int64":
        return (np.arange(n, dtype=np.int64) * 1_000_003).tolist()
    return (np.arange(n, dtype=np.float32) + 0.5).tolist()


def record(kind: str, n: int) -> bytes:
    """One serialized ``tf.Example``: feature ``x``, a list of ``n`` values."""
    import pyarrow as pa

    from colonnade.data.example_writer import encode_examples

    arrow = {"bytes": pa.binary(), "int64": pa.int64(), "float": pa.float32()}[kind]
    table = pa.table({"x": pa.array([values(kind, n)], pa.list_(arrow))})
    return encode_examples(table)[0]


def best_time(parse, data: bytes, repeats: int) -> float:
    """The best of ``repeats`` wall-clock seconds of ``parse(data)``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        parse(data)
        times.append(time.perf_counter() - start)
    return min(times)


def colonnade_parser(kind: str):
    from colonnade.data.example import parse_example
    from colonnade.data.parse_spec import VarLenFeature

    spec = {"x": VarLenFeature({"bytes": "bytes", "int64": "int64", "float": "float32"}[kind])}
    return lambda data: parse_example([data], spec)


def tf_parser(kind: str):
    import tensorflow as tf

    dtype = {"bytes": tf.string, "int64": tf.int64, "float": tf.float32}[kind]
    spec = {"x": tf.io.VarLenFeature(dtype)}
    return lambda data: tf.io.parse_example([data], spec)["x"].values.numpy()


def line(library: str, kind: str, n: int, data: bytes, seconds: float) -> str:
    return json.dumps(
        {
            "library": library,
            "kind": kind,
            "values": n,
            "record_bytes": len(data),
            "seconds": round(seconds, 5),
            "load_1min": round(os.getloadavg()[0], 2),
        }
    )


def run_tf_only(path: str, repeats: int) -> None:
    """Time TF on the records in ``path`` (the ``--tf-only`` subprocess mode)."""
    with open(path) as f:
        cases = json.load(f)
    for case in cases:
        with open(case["file"], "rb") as f:
            data = f.read()
        parse = tf_parser(case["kind"])
        parse(data)
        seconds = best_time(parse, data, repeats)
        print(line("tensorflow 2.15", case["kind"], case["values"], data, seconds), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--tf-python", default=None)
    parser.add_argument("--tf-only", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tf_only:
        run_tf_only(args.tf_only, args.repeats)
        return
    try:
        import tensorflow  # noqa: F401

        in_process_tf = True
    except ImportError:
        in_process_tf = False
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for kind in args.kinds.split(","):
            parse = colonnade_parser(kind)
            for n in sizes:
                data = record(kind, n)
                assert len(parse(data).column("x")[0]) == n
                seconds = best_time(parse, data, args.repeats)
                print(line("colonnade", kind, n, data, seconds), flush=True)
                if in_process_tf:
                    tf_parse = tf_parser(kind)
                    tf_parse(data)
                    seconds = best_time(tf_parse, data, args.repeats)
                    print(line("tensorflow 2.15", kind, n, data, seconds), flush=True)
                path = os.path.join(tmp, f"{kind}-{n}.pb")
                with open(path, "wb") as f:
                    f.write(data)
                cases.append({"kind": kind, "values": n, "file": path})
        if args.tf_python and not in_process_tf:
            listing = os.path.join(tmp, "cases.json")
            with open(listing, "w") as f:
                json.dump(cases, f)
            command = [args.tf_python, __file__, "--tf-only", listing]
            command += ["--repeats", str(args.repeats)]
            env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
            subprocess.run(command, check=True, env=env)


if __name__ == "__main__":
    main()
