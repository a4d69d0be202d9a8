#!/usr/bin/env python

# Copyright 2017 Google Inc. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# The original program: GoogleCloudPlatform/training-data-analyst at commit
# 1243d53b4ec4167649a1bfeef2dd92e22e5709eb,
# courses/machine_learning/deepdive/03_tensorflow/taxifare/trainer/model.py (Apache-2.0).
# Run under TF 2.15 (/work/tfenv/bin/python make_fixture.py) with one edit, TF's own
# migration line `import tensorflow.compat.v1 as tf`; everything from `tf.logging` to
# `train_and_evaluate` is the original's. The driver at the bottom (not the original's)
# writes a small synthetic taxi data set, runs the program, and records TF's predictions
# and metrics next to the model_dir it wrote (fixture/).

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import tensorflow.compat.v1 as tf
import numpy as np
import shutil

tf.logging.set_verbosity(tf.logging.INFO)

# List the CSV columns
CSV_COLUMNS = ['fare_amount', 'pickuplon','pickuplat','dropofflon','dropofflat','passengers', 'key']

#Choose which column is your label
LABEL_COLUMN = 'fare_amount'

# Set the default values for each CSV column in case there is a missing value
DEFAULTS = [[0.0], [-74.0], [40.0], [-74.0], [40.7], [1.0], ['nokey']]

# Create an input function that stores your data into a dataset
def read_dataset(filename, mode, batch_size = 512):
    def _input_fn():
        def decode_csv(value_column):
            columns = tf.decode_csv(value_column, record_defaults = DEFAULTS)
            features = dict(zip(CSV_COLUMNS, columns))
            label = features.pop(LABEL_COLUMN)
            return features, label
    
        # Create list of files that match pattern
        file_list = tf.gfile.Glob(filename)

        # Create dataset from file list
        dataset = tf.data.TextLineDataset(file_list).map(decode_csv)
        
        if mode == tf.estimator.ModeKeys.TRAIN:
            num_epochs = None # indefinitely
            dataset = dataset.shuffle(buffer_size = 10 * batch_size)
        else:
            num_epochs = 1 # end-of-input after this

        dataset = dataset.repeat(num_epochs).batch(batch_size)
        return dataset.make_one_shot_iterator().get_next()
    return _input_fn

# Define your feature columns
INPUT_COLUMNS = [
    tf.feature_column.numeric_column('pickuplon'),
    tf.feature_column.numeric_column('pickuplat'),
    tf.feature_column.numeric_column('dropofflat'),
    tf.feature_column.numeric_column('dropofflon'),
    tf.feature_column.numeric_column('passengers'),
]

# Create a function that will augment your feature set
def add_more_features(feats):
    # Nothing to add (yet!)
    return feats

feature_cols = add_more_features(INPUT_COLUMNS)

# Create your serving input function so that your trained model will be able to serve predictions
def serving_input_fn():
    feature_placeholders = {
        column.name: tf.placeholder(tf.float32, [None]) for column in INPUT_COLUMNS
    }

    features = feature_placeholders
    return tf.estimator.export.ServingInputReceiver(features, feature_placeholders)

# Create an estimator that we are going to train and evaluate
def train_and_evaluate(args):
    estimator = tf.estimator.DNNRegressor(
        model_dir = args['output_dir'],
        feature_columns = feature_cols,
        hidden_units = args['hidden_units'])
    train_spec = tf.estimator.TrainSpec(
        input_fn = read_dataset(args['train_data_paths'],
                                batch_size = args['train_batch_size'],
                                mode = tf.estimator.ModeKeys.TRAIN),
        max_steps = args['train_steps'])
    exporter = tf.estimator.LatestExporter('exporter', serving_input_fn)
    eval_spec = tf.estimator.EvalSpec(
        input_fn = read_dataset(args['eval_data_paths'],
                                batch_size = 10000,
                                mode = tf.estimator.ModeKeys.EVAL),
        steps = None,
        start_delay_secs = args['eval_delay_secs'],
        throttle_secs = args['min_eval_frequency'],
        exporters = exporter)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)


# ---- driver (not part of the original) ----
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from programs import prune_model_dir  # noqa: E402  (tests/porting/programs.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = {  # the original's task.py flags, at a small size
    "hidden_units": [16, 8],
    "train_batch_size": 32,
    "train_steps": 40,
    "eval_delay_secs": 1,
    "min_eval_frequency": 1,
}


def write_taxi_rows(path, n, seed):
    """Synthetic rows in the original's CSV layout (no header): fare grows with distance."""
    rng = np.random.RandomState(seed)
    pickup = np.stack([-73.98 + 0.03 * rng.randn(n), 40.75 + 0.03 * rng.randn(n)], 1)
    dropoff = pickup + 0.02 * rng.randn(n, 2)
    passengers = rng.randint(1, 5, n)
    distance = np.abs(dropoff - pickup).sum(1)
    fare = 2.5 + 150.0 * distance + 0.3 * rng.randn(n)
    with open(path, "w") as f:
        for i in range(n):
            f.write(
                "%.2f,%.6f,%.6f,%.6f,%.6f,%d,%d\n"
                % (fare[i], pickup[i, 0], pickup[i, 1], dropoff[i, 0], dropoff[i, 1], passengers[i], i)
            )


def main():
    fixture = os.path.join(HERE, "fixture")
    shutil.rmtree(fixture, ignore_errors=True)
    os.makedirs(fixture)
    write_taxi_rows(os.path.join(fixture, "taxi-train.csv"), 400, 0)
    write_taxi_rows(os.path.join(fixture, "taxi-valid.csv"), 100, 1)
    model_dir = os.path.join(fixture, "model_dir")
    args = dict(
        ARGS,
        output_dir=model_dir,
        train_data_paths=os.path.join(fixture, "taxi-train*.csv"),
        eval_data_paths=os.path.join(fixture, "taxi-valid.csv"),
    )
    train_and_evaluate(args)
    estimator = tf.estimator.DNNRegressor(
        model_dir=model_dir, feature_columns=feature_cols, hidden_units=args["hidden_units"]
    )
    metrics = estimator.evaluate(
        read_dataset(args["eval_data_paths"], batch_size=10000, mode=tf.estimator.ModeKeys.EVAL)
    )
    rows = read_dataset(args["eval_data_paths"], batch_size=8, mode=tf.estimator.ModeKeys.EVAL)
    predictions = [float(p["predictions"][0]) for p in estimator.predict(rows)][:8]
    prune_model_dir(model_dir, int(metrics["global_step"]))
    with open(os.path.join(fixture, "tf_results.json"), "w") as f:
        json.dump(
            {
                "tf_version": tf.__version__,
                "args": ARGS,
                "global_step": int(metrics["global_step"]),
                "metrics": {k: float(v) for k, v in metrics.items()},
                "predictions_first_8_eval_rows": predictions,
            },
            f,
            indent=1,
        )


if __name__ == "__main__":
    main()
