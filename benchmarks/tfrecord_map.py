"""TFRecordDataset parsed in a map, record-wise and batch-wise: colonnade vs TensorFlow.

The Adult training split (12 features) as one TFRecord file, read whole four ways:

- ``TFRecordDataset(path).map(parse_single_example).batch(1024)``: TF's record-wise idiom
  (TF calls the parse once per record; colonnade once per reader batch of records,
  vectorised: see ``data/tfrecord_dataset.py``);
- ``TFRecordDataset(path).batch(1024).map(parse_example)``: the batch-wise idiom.

Each side runs in its own environment: ``--write PATH`` writes the file (colonnade's
environment), ``--read PATH`` times the cases that import there (TF's where
``import tensorflow`` works, colonnade's where it imports), one JSON line per case and
round (records/s)::

    python benchmarks/tfrecord_map.py --write /tmp/adult.tfrecord [--rows 32561]
    for i in 1 2 3; do /tmp/tfenv/bin/python benchmarks/tfrecord_map.py --read /tmp/adult.tfrecord
                       python benchmarks/tfrecord_map.py --read /tmp/adult.tfrecord; done
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

BATCH = 1024
# benchmarks/tfrecord.py's columns of the Adult data
INT_COLUMNS = ["age", "fnlwgt", "educational-num", "capital-gain", "capital-loss"]
FLOAT_COLUMNS = ["hours-per-week"]
STRING_COLUMNS = ["workclass", "education", "marital-status", "occupation", "race", "gender"]


def specs(fixed, int64, float32, string):
    features = {c: fixed([], int64) for c in INT_COLUMNS}
    features.update({c: fixed([], float32) for c in FLOAT_COLUMNS})
    features.update({c: fixed([], string) for c in STRING_COLUMNS})
    return features


def tf_cases(path):
    try:
        import tensorflow as tf
    except ImportError:
        return
    features = specs(tf.io.FixedLenFeature, tf.int64, tf.float32, tf.string)
    record_wise = (
        tf.data.TFRecordDataset(path)
        .map(lambda r: tf.io.parse_single_example(r, features))
        .batch(BATCH)
    )
    batch_wise = (
        tf.data.TFRecordDataset(path).batch(BATCH).map(lambda r: tf.io.parse_example(r, features))
    )

    def run(ds):
        def go():
            for _ in ds:
                pass

        go()  # trace the map function once
        return go

    yield f"tf {tf.__version__} map(parse_single_example).batch(1024)", run(record_wise)
    yield f"tf {tf.__version__} batch(1024).map(parse_example)", run(batch_wise)


def colonnade_cases(path):
    try:
        import colonnade as cn
    except ImportError:
        return

    features = specs(cn.io.FixedLenFeature, "int64", "float32", "string")

    def record_wise():
        ds = cn.data.TFRecordDataset(path).map(lambda r: cn.io.parse_single_example(r, features))
        for _ in ds.batch(BATCH):
            pass

    def batch_wise():
        ds = cn.data.TFRecordDataset(path).batch(BATCH)
        for _ in ds.map(lambda r: cn.io.parse_example(r, features)):
            pass

    yield "colonnade map(parse_single_example).batch(1024)", record_wise
    yield "colonnade batch(1024).map(parse_example)", batch_wise


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", help="write the Adult rows as a TFRecord file here")
    parser.add_argument("--read", help="time the cases on this file")
    parser.add_argument("--rows", type=int, default=32561)
    args = parser.parse_args(argv)
    if args.write:
        sys.path.insert(0, os.path.dirname(__file__))
        from tfrecord import adult_frame

        from colonnade.data.example_writer import write_tfrecord

        write_tfrecord(adult_frame(args.rows), args.write)
    if args.read:
        cases = dict(tf_cases(args.read))
        try:
            cases.update(colonnade_cases(args.read))
        except ImportError:
            pass
        rows = sum(1 for _ in _records(args.read))
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            seconds = time.perf_counter() - start
            print(json.dumps({"benchmark": name, "records_per_s": round(rows / seconds)}))


def _records(path):
    try:
        import tensorflow as tf

        return tf.data.TFRecordDataset(path).as_numpy_iterator()
    except ImportError:
        import colonnade as cn

        return cn.io.tf_record_iterator(path)


if __name__ == "__main__":
    main()
