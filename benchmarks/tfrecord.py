"""TFRecord + tf.Example parsing speed: colonnade vs TensorFlow (when importable).

Writes the Adult training split (12 features: int64, float32 and string) as a TFRecord
file, then times reading and parsing it all, in batches of 1024 records:

- ``colonnade parse_records``: framing + checksums (``read_record_chunks``) and
  ``parse_records`` on each 1024-record slice (what TF's pipeline below does);
- ``colonnade Dataset.from_tfrecord``: the streaming dataset (parses whole 4 MiB chunks);
- ``protobuf runtime``: the design not taken (upb decoding, a Python loop over records
  and features), when ``protobuf`` is installed;
- ``tf TFRecordDataset.batch(1024).map(parse_example)``: TF 2.15's pipeline, only when
  ``import tensorflow`` works (run this script with a TF environment's python to get it).

Each prints one JSON line with records/s (best of ``--repeats`` rounds, the cases taking
turns in each) and, with TF, the ratio to TF's speed in each round and its median: on a
loaded machine the per-round ratio is steadier than the best figures. Usage::

    python benchmarks/tfrecord.py [--repeats 3] [--rows 32561]

Needs colonnade importable (``pip install -e .``, or run from the repository root).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

BATCH = 1024
INT_COLUMNS = ["age", "fnlwgt", "educational-num", "capital-gain", "capital-loss"]
FLOAT_COLUMNS = ["hours-per-week"]
STRING_COLUMNS = ["workclass", "education", "marital-status", "occupation", "race", "gender"]


def adult_frame(rows):
    from colonnade.demo import load_adult

    df = load_adult("train")[INT_COLUMNS + FLOAT_COLUMNS + STRING_COLUMNS]
    df = df.astype({c: "float32" for c in FLOAT_COLUMNS})
    df = df.astype({c: object for c in STRING_COLUMNS})
    while len(df) < rows:
        df = pd.concat([df, df], ignore_index=True)
    return df.iloc[:rows].reset_index(drop=True)


def round_times(cases, repeats):
    """``{name: [seconds of each round]}``; the cases take turns in each round so a
    change in the (shared) machine's load hits them alike."""
    times = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def report(times, rows, reference=None):
    """One JSON line per case: records/s (best round) and, when ``reference`` (TF's case)
    ran, the speed ratio to it in each round (same round, same load) and their median."""
    for name, seconds in times.items():
        line = {"benchmark": name, "records": rows, "records_per_s": round(rows / min(seconds))}
        if reference is not None:
            ratios = [ref / own for ref, own in zip(times[reference], seconds)]
            line["vs_tf_per_round"] = [round(r, 2) for r in ratios]
            line["vs_tf_median"] = round(statistics.median(ratios), 2)
        print(json.dumps(line))


def colonnade_cases(path):
    from colonnade.data import Dataset
    from colonnade.data.example import parse_records
    from colonnade.data.tfrecord import read_record_chunks
    from colonnade.io import FixedLenFeature

    features = {c: FixedLenFeature([], "int64") for c in INT_COLUMNS}
    features.update({c: FixedLenFeature([], "float32") for c in FLOAT_COLUMNS})
    features.update({c: FixedLenFeature([], "string") for c in STRING_COLUMNS})

    def sliced():
        for chunk in read_record_chunks(path):
            for i in range(0, chunk.starts.size, BATCH):
                parse_records(
                    chunk.buf,
                    chunk.starts[i : i + BATCH],
                    chunk.ends[i : i + BATCH],
                    features,
                    chunk.first_index + i,
                    path,
                )

    def dataset():
        for _ in Dataset.from_tfrecord(path, features):
            pass

    def framing():
        for _ in read_record_chunks(path):
            pass

    yield "colonnade parse_records(1024)", sliced
    yield "colonnade Dataset.from_tfrecord", dataset
    yield "colonnade framing and checksums only (read_record_chunks)", framing


def protobuf_cases(path):
    """The alternative design: the protobuf runtime (upb) decodes each record, Python
    collects each feature's values into columns (only when ``protobuf`` is installed)."""
    try:
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "data"))
        import example_pb
        import pyarrow as pa
    except ImportError:
        return
    from colonnade.data.tfrecord import tf_record_iterator

    example = example_pb.build()["Example"]
    names = INT_COLUMNS + FLOAT_COLUMNS + STRING_COLUMNS

    def run():
        records = list(tf_record_iterator(path))
        for i in range(0, len(records), BATCH):
            columns = {name: [] for name in names}
            for record in records[i : i + BATCH]:
                feature = example.FromString(record).features.feature
                for name in INT_COLUMNS:
                    columns[name].append(feature[name].int64_list.value[0])
                for name in FLOAT_COLUMNS:
                    columns[name].append(feature[name].float_list.value[0])
                for name in STRING_COLUMNS:
                    columns[name].append(feature[name].bytes_list.value[0].decode())
            pa.table(columns)

    yield "protobuf runtime, a loop over records and features", run


def tf_cases(path):
    try:
        import tensorflow as tf
    except ImportError:
        return
    features = {c: tf.io.FixedLenFeature([], tf.int64) for c in INT_COLUMNS}
    features.update({c: tf.io.FixedLenFeature([], tf.float32) for c in FLOAT_COLUMNS})
    features.update({c: tf.io.FixedLenFeature([], tf.string) for c in STRING_COLUMNS})
    ds = tf.data.TFRecordDataset(path).batch(BATCH).map(lambda x: tf.io.parse_example(x, features))

    def run():
        for _ in ds:
            pass

    run()  # trace the map function once
    yield f"tf {tf.__version__} TFRecordDataset.batch(1024).map(parse_example)", run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=32561)
    parser.add_argument("--no-protobuf", action="store_true", help="skip the protobuf case")
    args = parser.parse_args(argv)
    from colonnade.data.example_writer import write_tfrecord

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "adult.tfrecord")
        write_tfrecord(adult_frame(args.rows), path)
        cases = dict(tf_cases(path))
        reference = next(iter(cases), None)
        cases.update(colonnade_cases(path))
        if not args.no_protobuf:
            cases.update(protobuf_cases(path))
        report(round_times(cases, args.repeats), args.rows, reference)


if __name__ == "__main__":
    main()
