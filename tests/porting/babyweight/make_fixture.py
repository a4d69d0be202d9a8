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
# 36c3656f007dbaadccd2add84862896dc4f2e943,
# courses/machine_learning/deepdive/06_structured/babyweight/trainer/model.py (the
# repository's Apache-2.0 license; the file carries no header of its own). Run under
# TF 2.15 (/work/tfenv/bin/python make_fixture.py) with TF's own migration edits, each
# marked `# TF2:`: `import tensorflow.compat.v1 as tf`; `tf.contrib.estimator.add_metrics`
# is `tf.estimator.add_metrics`; TF 2 dropped `tf.contrib.estimator.forward_features`, so
# the driver defines its smallest equivalent, `forward_features` below. One edit that is
# not TF's: the data are read from a local folder, not `gs://`. The driver at the bottom
# (not the original's) writes a small synthetic babyweight data set, sets the original's
# task.py hyperparameters to a small size, runs `train_and_evaluate`, and records TF's
# predictions, metrics and its export's answers next to the model_dir (fixture/).

import shutil
import numpy as np
import tensorflow.compat.v1 as tf  # TF2: was `import tensorflow as tf`

tf.logging.set_verbosity(tf.logging.INFO)

BUCKET = None  # set from task.py
PATTERN = 'of'  # gets all files

# Determine CSV, label, and key columns
CSV_COLUMNS = 'weight_pounds,is_male,mother_age,plurality,gestation_weeks,key'.split(
    ',')
LABEL_COLUMN = 'weight_pounds'
KEY_COLUMN = 'key'

# Set default values for each CSV column
DEFAULTS = [[0.0], ['null'], [0.0], ['null'], [0.0], ['nokey']]

# Define some hyperparameters
TRAIN_STEPS = 10000
EVAL_STEPS = None
BATCH_SIZE = 512
NEMBEDS = 3
NNSIZE = [64, 16, 4]


# Create an input function reading a file using the Dataset API
# Then provide the results to the Estimator API
def read_dataset(prefix, mode, batch_size):
    def _input_fn():
        def decode_csv(value_column):
            columns = tf.decode_csv(value_column, record_defaults=DEFAULTS)
            features = dict(zip(CSV_COLUMNS, columns))
            label = features.pop(LABEL_COLUMN)
            return features, label

        # Use prefix to create file path
        file_path = '{}/babyweight/preproc/{}*{}*'.format(  # local: was 'gs://{}/babyweight/...'
            BUCKET, prefix, PATTERN)

        # Create list of files that match pattern
        file_list = tf.gfile.Glob(file_path)

        # Create dataset from file list
        dataset = (
            tf.data.TextLineDataset(file_list)  # Read text file
            .map(decode_csv))  # Transform each elem by applying decode_csv fn

        if mode == tf.estimator.ModeKeys.TRAIN:
            num_epochs = None  # indefinitely
            dataset = dataset.shuffle(buffer_size=10 * batch_size)
        else:
            num_epochs = 1  # end-of-input after this

        dataset = dataset.repeat(num_epochs).batch(batch_size)
        return dataset.make_one_shot_iterator().get_next()

    return _input_fn


# Define feature columns
def get_wide_deep():
    # Define column types
    is_male,mother_age,plurality,gestation_weeks = \
        [\
            tf.feature_column.categorical_column_with_vocabulary_list('is_male',
                        ['True', 'False', 'Unknown']),
            tf.feature_column.numeric_column('mother_age'),
            tf.feature_column.categorical_column_with_vocabulary_list('plurality',
                        ['Single(1)', 'Twins(2)', 'Triplets(3)',
                         'Quadruplets(4)', 'Quintuplets(5)','Multiple(2+)']),
            tf.feature_column.numeric_column('gestation_weeks')
        ]

    # Discretize
    age_buckets = tf.feature_column.bucketized_column(mother_age,
                                                      boundaries=np.arange(
                                                          15, 45, 1).tolist())
    gestation_buckets = tf.feature_column.bucketized_column(
        gestation_weeks, boundaries=np.arange(17, 47, 1).tolist())

    # Sparse columns are wide, have a linear relationship with the output
    wide = [is_male, plurality, age_buckets, gestation_buckets]

    # Feature cross all the wide columns and embed into a lower dimension
    crossed = tf.feature_column.crossed_column(wide, hash_bucket_size=20000)
    embed = tf.feature_column.embedding_column(crossed, NEMBEDS)

    # Continuous columns are deep, have a complex relationship with the output
    deep = [mother_age, gestation_weeks, embed]
    return wide, deep


# Create serving input function to be able to serve predictions later using provided inputs
def serving_input_fn():
    feature_placeholders = {
        'is_male': tf.placeholder(tf.string, [None]),
        'mother_age': tf.placeholder(tf.float32, [None]),
        'plurality': tf.placeholder(tf.string, [None]),
        'gestation_weeks': tf.placeholder(tf.float32, [None]),
        KEY_COLUMN: tf.placeholder_with_default(tf.constant(['nokey']), [None])
    }
    features = {
        key: tf.expand_dims(tensor, -1)
        for key, tensor in feature_placeholders.items()
    }
    return tf.estimator.export.ServingInputReceiver(features,
                                                    feature_placeholders)


# create metric for hyperparameter tuning
def my_rmse(labels, predictions):
    pred_values = predictions['predictions']
    return {'rmse': tf.metrics.root_mean_squared_error(labels, pred_values)}


# Create estimator to train and evaluate
def train_and_evaluate(output_dir):
    tf.summary.FileWriterCache.clear(
    )  # ensure filewriter cache is clear for TensorBoard events file
    wide, deep = get_wide_deep()
    EVAL_INTERVAL = 300  # seconds

    ## TODO 2a: set the save_checkpoints_secs to the EVAL_INTERVAL
    run_config = tf.estimator.RunConfig(save_checkpoints_secs=EVAL_INTERVAL,
                                        keep_checkpoint_max=3)

    ## TODO 2b: change the dnn_hidden_units to NNSIZE
    estimator = tf.estimator.DNNLinearCombinedRegressor(
        model_dir=output_dir,
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=NNSIZE,
        config=run_config)

    # illustrates how to add an extra metric
    estimator = tf.estimator.add_metrics(estimator, my_rmse)  # TF2: was tf.contrib.estimator.
    # for batch prediction, you need a key associated with each instance
    estimator = forward_features(estimator, KEY_COLUMN)  # TF2: was tf.contrib.estimator.

    ## TODO 2c: Set the third argument of read_dataset to BATCH_SIZE
    ## TODO 2d: and set max_steps to TRAIN_STEPS
    train_spec = tf.estimator.TrainSpec(input_fn=read_dataset(
        'train', tf.estimator.ModeKeys.TRAIN, BATCH_SIZE),
                                        max_steps=TRAIN_STEPS)

    exporter = tf.estimator.LatestExporter('exporter',
                                           serving_input_fn,
                                           exports_to_keep=None)

    ## TODO 2e: Lastly, set steps equal to EVAL_STEPS
    eval_spec = tf.estimator.EvalSpec(
        input_fn=read_dataset('eval', tf.estimator.ModeKeys.EVAL,
                              2**15),  # no need to batch in eval
        steps=EVAL_STEPS,
        start_delay_secs=60,  # start evaluating after N seconds
        throttle_secs=EVAL_INTERVAL,  # evaluate every N seconds
        exporters=exporter)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)


# ---- driver (not part of the original) ----
import glob  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from programs import prune_model_dir, write_tf_results  # noqa: E402  (tests/porting/programs.py)

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"TRAIN_STEPS": 40, "BATCH_SIZE": 32, "NNSIZE": [8, 4], "NEMBEDS": 3}
IS_MALE = ["True", "False", "Unknown"]
PLURALITY = ["Single(1)", "Twins(2)", "Triplets(3)", "Quadruplets(4)", "Quintuplets(5)",
             "Multiple(2+)"]


def forward_features(estimator, key):
    """TF 1's `tf.contrib.estimator.forward_features(estimator, key)`, which TF 2 dropped, in
    its smallest form: in PREDICT the feature `key` is copied into the predictions and into
    the `predict` / `serving_default` export outputs that are `PredictOutput`s."""

    def model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != tf.estimator.ModeKeys.PREDICT:
            return spec
        predictions = dict(spec.predictions, **{key: features[key]})
        outputs = dict(spec.export_outputs)
        for name in ("predict", "serving_default"):
            if isinstance(outputs.get(name), tf.estimator.export.PredictOutput):
                forwarded = dict(outputs[name].outputs, **{key: features[key]})
                outputs[name] = tf.estimator.export.PredictOutput(forwarded)
        return spec._replace(predictions=predictions, export_outputs=outputs)

    return tf.estimator.Estimator(model_fn, model_dir=estimator.model_dir, config=estimator.config)


def write_babyweight_rows(path, n, seed):
    """Synthetic rows in the original's preprocessed CSV layout (no header): the weight
    grows with gestation, a little with the mother's age, less for boys' absence and for
    twins or more."""
    rng = np.random.RandomState(seed)
    is_male = rng.choice(IS_MALE, n, p=[0.45, 0.45, 0.1])
    plurality = rng.choice(PLURALITY, n, p=[0.8, 0.1, 0.04, 0.02, 0.02, 0.02])
    mother_age = rng.randint(14, 47, n).astype(float)
    gestation = np.clip(np.round(39 + 2.5 * rng.randn(n)), 18, 48)
    weight = (
        7.3 + 0.3 * (gestation - 39) + 0.01 * (mother_age - 28) + 0.3 * (is_male == "True")
        - 1.5 * (plurality != "Single(1)") + 0.5 * rng.randn(n)
    )
    with open(path, "w") as f:
        for i in range(n):
            f.write("%.4f,%s,%.1f,%s,%.1f,key-%d-%d\n"
                    % (weight[i], is_male[i], mother_age[i], plurality[i], gestation[i], seed, i))


def first_eval_rows(n):
    """The first `n` evaluation rows as the serving export's raw inputs."""
    with open(glob.glob(os.path.join(HERE, "fixture", "babyweight", "preproc", "eval*"))[0]) as f:
        rows = [line.strip().split(",") for line in f][:n]
    return {
        "is_male": [r[1] for r in rows],
        "mother_age": [float(r[2]) for r in rows],
        "plurality": [r[3] for r in rows],
        "gestation_weeks": [float(r[4]) for r in rows],
        "key": [r[5] for r in rows],
    }


def export_answers(export_dir, rows):
    """What TF's export answers for `rows`: its signatures' names, and the `predict`
    signature's outputs."""
    import tensorflow as tf2  # TF 2's loader: a SavedModel's signatures as functions

    loaded = tf2.saved_model.load(export_dir)
    inputs = {
        "is_male": tf.constant(rows["is_male"]),
        "mother_age": tf.constant(rows["mother_age"], tf.float32),
        "plurality": tf.constant(rows["plurality"]),
        "gestation_weeks": tf.constant(rows["gestation_weeks"], tf.float32),
        "key": tf.constant(rows["key"]),
    }
    signatures = {}
    for name in sorted(loaded.signatures):
        function = loaded.signatures[name]
        given = {k: v for k, v in inputs.items() if k in function.structured_input_signature[1]}
        out = function(**given)
        signatures[name] = {
            k: (v.numpy().astype(str).tolist() if v.dtype == tf.string else v.numpy().tolist())
            for k, v in out.items()
        }
    return signatures


def main():
    global BUCKET, TRAIN_STEPS, BATCH_SIZE, NNSIZE, NEMBEDS
    fixture = os.path.join(HERE, "fixture")
    shutil.rmtree(fixture, ignore_errors=True)
    preproc = os.path.join(fixture, "babyweight", "preproc")
    os.makedirs(preproc)
    write_babyweight_rows(os.path.join(preproc, "train.csv-00000-of-00001"), 300, 0)
    write_babyweight_rows(os.path.join(preproc, "eval.csv-00000-of-00001"), 100, 1)
    BUCKET = fixture
    TRAIN_STEPS, BATCH_SIZE = SIZES["TRAIN_STEPS"], SIZES["BATCH_SIZE"]
    NNSIZE, NEMBEDS = SIZES["NNSIZE"], SIZES["NEMBEDS"]
    model_dir = os.path.join(fixture, "model_dir")
    train_and_evaluate(model_dir)

    wide, deep = get_wide_deep()
    estimator = tf.estimator.DNNLinearCombinedRegressor(
        model_dir=model_dir, linear_feature_columns=wide, dnn_feature_columns=deep,
        dnn_hidden_units=NNSIZE)
    estimator = forward_features(tf.estimator.add_metrics(estimator, my_rmse), KEY_COLUMN)
    metrics = estimator.evaluate(read_dataset("eval", tf.estimator.ModeKeys.EVAL, 2**15))
    predicted = list(estimator.predict(read_dataset("eval", tf.estimator.ModeKeys.EVAL, 8)))[:8]
    export_dir = max(glob.glob(os.path.join(model_dir, "export", "exporter", "*")))
    answers = export_answers(export_dir, first_eval_rows(8))
    variables = sorted(name for name, _ in tf.train.list_variables(model_dir))
    prune_model_dir(model_dir, int(metrics["global_step"]))
    write_tf_results(
        fixture,
        tf_version=tf.__version__,
        sizes=SIZES,
        global_step=int(metrics["global_step"]),
        metrics={k: float(v) for k, v in metrics.items()},
        predictions_first_8_eval_rows=[float(p["predictions"][0]) for p in predicted],
        keys_first_8_eval_rows=[p["key"].decode() for p in predicted],
        export_signatures_first_8_eval_rows=answers,
        variables=variables,
    )


if __name__ == "__main__":
    main()
