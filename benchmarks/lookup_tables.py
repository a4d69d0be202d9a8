"""Lookup of many string keys in a vocabulary table with OOV buckets
(``index_table_from_tensor(vocab, num_oov_buckets=100).lookup(keys)``): colonnade's, and
TensorFlow 2.15's (eager) when run with ``--tf`` in TensorFlow's environment. Prints one
JSON line: the best of ``--repeats`` lookups, in seconds.

    python benchmarks/lookup_tables.py [--vocab 100000] [--keys 1000000]
    /tmp/tfenv/bin/python benchmarks/lookup_tables.py --tf
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def data(vocab_size: int, num_keys: int):
    rng = np.random.default_rng(0)
    vocab = np.array([f"word{i}" for i in range(vocab_size)], object)
    keys = np.array([f"word{i}" for i in rng.integers(0, vocab_size * 6 // 5, num_keys)], object)
    return vocab, keys


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tf", action="store_true")
    args = parser.parse_args()
    vocab, keys = data(args.vocab, args.keys)
    if args.tf:
        import tensorflow as tf
        from tensorflow.python.ops import lookup_ops

        table = lookup_ops.index_table_from_tensor(tf.constant(vocab.astype(str)), 100)
        tensor = tf.constant(keys.astype(str))
        seconds = best(lambda: table.lookup(tensor).numpy(), args.repeats)
        impl = f"tensorflow {tf.__version__}"
    else:
        import colonnade as cn

        table = cn.compat.v1.lookup.index_table_from_tensor(vocab, num_oov_buckets=100)
        seconds = best(lambda: table.lookup(keys), args.repeats)
        impl = "colonnade"
    print(json.dumps({"impl": impl, "vocab": args.vocab, "keys": args.keys, "best_s": seconds}))


if __name__ == "__main__":
    main()
