"""Make the TFRecord / tf.Example golden fixtures with TensorFlow (run with a TF env's python).

    python3 -m venv /tmp/tfenv && /tmp/tfenv/bin/pip install tensorflow-cpu==2.15.1 \
        "pyarrow<16" pandas google-crc32c pyfarmhash
    /tmp/tfenv/bin/pip install --no-deps -e .      # colonnade, for the reverse check
    /tmp/tfenv/bin/python tests/data/golden/make_tfrecord_fixtures.py

Writes, next to this script:

- ``adult_tf.tfrecord``, ``adult_tf.tfrecord.gz`` (GZIP), ``adult_tf.tfrecord.zlib`` (ZLIB):
  eight Adult rows as tf.Example written by ``tf.io.TFRecordWriter`` (int64, float, string
  and a variable-length list feature; ``workclass`` absent from two rows);
- ``adult_tf_sequence.tfrecord``: tf.SequenceExample records;
- ``adult_tf_parsed.json``: TF's ``parse_example`` / ``parse_sequence_example`` results;
- ``adult_tf_meta.json``: versions, and whether TF parses files *colonnade* wrote of the
  same rows (all three compressions) identically (``colonnade_files_parsed_by_tf``).
"""

import json
import os
import tempfile

import numpy as np
import pandas as pd
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
ADULT = os.path.join(HERE, "..", "..", "..", "colonnade", "datasets", "adult_train.parquet")
COMPRESSIONS = {
    "": "adult_tf.tfrecord",
    "GZIP": "adult_tf.tfrecord.gz",
    "ZLIB": "adult_tf.tfrecord.zlib",
}

SPEC = {
    "age": tf.io.FixedLenFeature([], tf.int64),
    "fnlwgt": tf.io.FixedLenFeature([], tf.int64),
    "hours": tf.io.FixedLenFeature([], tf.float32),
    "education": tf.io.FixedLenFeature([], tf.string),
    "workclass": tf.io.FixedLenFeature([], tf.string, default_value="?"),
    "nums": tf.io.FixedLenFeature([2], tf.int64),
    "tags": tf.io.VarLenFeature(tf.string),
}
CONTEXT = {"age": tf.io.FixedLenFeature([], tf.int64)}
SEQUENCE = {
    "hours": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
    "words": tf.io.VarLenFeature(tf.string),
}


def rows():
    df = pd.read_parquet(ADULT).head(8)
    df = df.assign(hours=df["hours-per-week"].astype("float32") + np.float32(0.25))
    df["workclass"] = df["workclass"].astype(object).where(df.index % 4 != 1, None)
    return df


def feature(values, kind):
    if kind == "int":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[v.encode() for v in values]))


def example(row):
    f = {
        "age": feature([int(row["age"])], "int"),
        "fnlwgt": feature([int(row["fnlwgt"])], "int"),
        "hours": feature([float(row["hours"])], "float"),
        "education": feature([row["education"]], "bytes"),
        "nums": feature([int(row["educational-num"]), -int(row["capital-gain"])], "int"),
        "tags": feature([row["occupation"], row["race"]][: 1 + int(row["age"]) % 2], "bytes"),
    }
    if row["workclass"] is not None:
        f["workclass"] = feature([row["workclass"]], "bytes")
    return tf.train.Example(features=tf.train.Features(feature=f))


def sequence_example(row):
    steps = int(row["age"]) % 3
    lists = {
        "hours": tf.train.FeatureList(
            feature=[feature([float(row["hours"]) + s], "float") for s in range(steps)]
        ),
        "words": tf.train.FeatureList(
            feature=[feature([row["education"]] * s, "bytes") for s in range(steps)]
        ),
    }
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={"age": feature([int(row["age"])], "int")}),
        feature_lists=tf.train.FeatureLists(feature_list=lists),
    )


def to_lists(parsed):
    out = {}
    for name, value in parsed.items():
        if isinstance(value, tf.SparseTensor):
            rows_ = [[] for _ in range(int(value.dense_shape[0]))]
            for (r, *_), v in zip(value.indices.numpy(), value.values.numpy()):
                rows_[r].append(v)
            out[name] = [[plain(v) for v in r] for r in rows_]
        else:
            out[name] = plain(value.numpy())
    return out


def plain(v):
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v]
    if isinstance(v, bytes):
        return v.decode()
    return v.item() if hasattr(v, "item") else v


def parse_file(path, compression):
    records = list(tf.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator())
    return to_lists(tf.io.parse_example(records, SPEC))


def sequence_parse(records):
    ctx, seq, _ = tf.io.parse_sequence_example(records, CONTEXT, SEQUENCE)
    seq = to_lists(seq)
    # TF pads a FixedLenSequenceFeature to the longest record; keep each record's steps.
    lengths = [int(r["age"]) % 3 for _, r in rows().iterrows()]
    seq["hours"] = [h[:n] for h, n in zip(seq["hours"], lengths)]
    # VarLen: TF gives a sparse [record, step, value] tensor; regroup it by step.
    sparse = tf.io.parse_sequence_example(records, CONTEXT, SEQUENCE)[1]["words"]
    grouped = [[[] for _ in range(n)] for n in lengths]
    for (r, s, _), v in zip(sparse.indices.numpy(), sparse.values.numpy()):
        grouped[r][s].append(v.decode())
    seq["words"] = grouped
    return to_lists(ctx), seq


def main():
    df = rows()
    examples = [example(r).SerializeToString() for _, r in df.iterrows()]
    for compression, name in COMPRESSIONS.items():
        with tf.io.TFRecordWriter(os.path.join(HERE, name), compression) as writer:
            for record in examples:
                writer.write(record)
    seq_records = [sequence_example(r).SerializeToString() for _, r in df.iterrows()]
    with tf.io.TFRecordWriter(os.path.join(HERE, "adult_tf_sequence.tfrecord")) as writer:
        for record in seq_records:
            writer.write(record)

    parsed = {c or "NONE": parse_file(os.path.join(HERE, n), c) for c, n in COMPRESSIONS.items()}
    assert all(p == parsed["NONE"] for p in parsed.values())
    context, sequences = sequence_parse(seq_records)
    golden = {"example": parsed["NONE"], "context": context, "sequences": sequences}
    with open(os.path.join(HERE, "adult_tf_parsed.json"), "w") as f:
        json.dump(golden, f, indent=1)

    # The reverse: files colonnade writes of the same values, read and parsed by TF.
    import pyarrow as pa

    import colonnade as cn

    table = pa.table(
        {
            "age": df["age"].astype("int64"),
            "fnlwgt": df["fnlwgt"].astype("int64"),
            "hours": df["hours"].astype("float32"),
            "education": df["education"].astype(object),
            "workclass": df["workclass"],
            "nums": [[int(a), -int(b)] for a, b in zip(df["educational-num"], df["capital-gain"])],
            "tags": [
                [o, r][: 1 + int(a) % 2] for o, r, a in zip(df["occupation"], df["race"], df["age"])
            ],
        }
    )
    outcome = {}
    with tempfile.TemporaryDirectory() as tmp:
        for compression in COMPRESSIONS:
            path = os.path.join(tmp, f"colonnade.tfrecord{compression}")
            cn.io.write_tfrecord(table, path, compression_type=compression or None)
            same = parse_file(path, compression) == parsed["NONE"]
            outcome[compression or "NONE"] = "identical" if same else "DIFFERENT"
    meta = {
        "tensorflow": tf.__version__,
        "colonnade": cn.__version__,
        "rows": len(df),
        "colonnade_files_parsed_by_tf": outcome,
    }
    with open(os.path.join(HERE, "adult_tf_meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
