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

# colonnade's port of GoogleCloudPlatform/training-data-analyst at commit
# 36c3656f007dbaadccd2add84862896dc4f2e943,
# courses/machine_learning/deepdive/06_structured/babyweight/trainer/model.py (the
# repository's Apache-2.0 license). `tf.` became `cn.compat.v1.` (the original is a TF 1
# program); the other edits are marked `# PORT:` and listed in docs/porting.md.

import shutil
import numpy as np
import colonnade as cn

cn.compat.v1.logging.set_verbosity(cn.compat.v1.logging.INFO)

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
            columns = cn.compat.v1.decode_csv(value_column, record_defaults=DEFAULTS)
            features = dict(zip(CSV_COLUMNS, columns))
            label = features.pop(LABEL_COLUMN)
            return features, label

        # Use prefix to create file path
        file_path = '{}/babyweight/preproc/{}*{}*'.format(  # PORT: local, was 'gs://{}/...'
            BUCKET, prefix, PATTERN)

        # Create list of files that match pattern
        file_list = cn.compat.v1.gfile.Glob(file_path)

        # Create dataset from file list
        dataset = (
            cn.compat.v1.data.TextLineDataset(file_list)  # Read text file
            .map(decode_csv))  # Transform each elem by applying decode_csv fn

        if mode == cn.compat.v1.estimator.ModeKeys.TRAIN:
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
            cn.compat.v1.feature_column.categorical_column_with_vocabulary_list('is_male',
                        ['True', 'False', 'Unknown']),
            cn.compat.v1.feature_column.numeric_column('mother_age'),
            cn.compat.v1.feature_column.categorical_column_with_vocabulary_list('plurality',
                        ['Single(1)', 'Twins(2)', 'Triplets(3)',
                         'Quadruplets(4)', 'Quintuplets(5)','Multiple(2+)']),
            cn.compat.v1.feature_column.numeric_column('gestation_weeks')
        ]

    # Discretize
    age_buckets = cn.compat.v1.feature_column.bucketized_column(mother_age,
                                                      boundaries=np.arange(
                                                          15, 45, 1).tolist())
    gestation_buckets = cn.compat.v1.feature_column.bucketized_column(
        gestation_weeks, boundaries=np.arange(17, 47, 1).tolist())

    # Sparse columns are wide, have a linear relationship with the output
    wide = [is_male, plurality, age_buckets, gestation_buckets]

    # Feature cross all the wide columns and embed into a lower dimension
    crossed = cn.compat.v1.feature_column.crossed_column(wide, hash_bucket_size=20000)
    embed = cn.compat.v1.feature_column.embedding_column(crossed, NEMBEDS)

    # Continuous columns are deep, have a complex relationship with the output
    deep = [mother_age, gestation_weeks, embed]
    return wide, deep


# Create serving input function to be able to serve predictions later using provided inputs
def serving_input_fn():
    feature_placeholders = {
        'is_male': cn.compat.v1.placeholder(cn.compat.v1.string, [None]),
        'mother_age': cn.compat.v1.placeholder(cn.compat.v1.float32, [None]),
        'plurality': cn.compat.v1.placeholder(cn.compat.v1.string, [None]),
        'gestation_weeks': cn.compat.v1.placeholder(cn.compat.v1.float32, [None]),
        KEY_COLUMN: cn.compat.v1.placeholder_with_default(cn.compat.v1.constant(['nokey']), [None])
    }
    features = {
        key: cn.compat.v1.expand_dims(tensor, -1)
        for key, tensor in feature_placeholders.items()
    }
    return cn.compat.v1.estimator.export.ServingInputReceiver(features,
                                                              feature_placeholders)


# create metric for hyperparameter tuning
def my_rmse(labels, predictions):
    pred_values = predictions['predictions']
    return {'rmse': cn.compat.v1.metrics.root_mean_squared_error(labels, pred_values)}


# Create estimator to train and evaluate
def train_and_evaluate(output_dir):
    cn.compat.v1.summary.FileWriterCache.clear(
    )  # ensure filewriter cache is clear for TensorBoard events file
    wide, deep = get_wide_deep()
    EVAL_INTERVAL = 300  # seconds

    ## TODO 2a: set the save_checkpoints_secs to the EVAL_INTERVAL
    run_config = cn.compat.v1.estimator.RunConfig(save_checkpoints_secs=EVAL_INTERVAL,
                                        keep_checkpoint_max=3)

    ## TODO 2b: change the dnn_hidden_units to NNSIZE
    estimator = cn.compat.v1.estimator.DNNLinearCombinedRegressor(
        model_dir=output_dir,
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=NNSIZE,
        config=run_config)

    # illustrates how to add an extra metric
    estimator = cn.compat.v1.contrib.estimator.add_metrics(estimator, my_rmse)
    # for batch prediction, you need a key associated with each instance
    estimator = cn.compat.v1.contrib.estimator.forward_features(estimator, KEY_COLUMN)

    ## TODO 2c: Set the third argument of read_dataset to BATCH_SIZE
    ## TODO 2d: and set max_steps to TRAIN_STEPS
    train_spec = cn.compat.v1.estimator.TrainSpec(input_fn=read_dataset(
        'train', cn.compat.v1.estimator.ModeKeys.TRAIN, BATCH_SIZE),
                                        max_steps=TRAIN_STEPS)

    exporter = cn.compat.v1.estimator.LatestExporter('exporter',
                                           serving_input_fn,
                                           exports_to_keep=None)

    ## TODO 2e: Lastly, set steps equal to EVAL_STEPS
    eval_spec = cn.compat.v1.estimator.EvalSpec(
        input_fn=read_dataset('eval', cn.compat.v1.estimator.ModeKeys.EVAL,
                              2**15),  # no need to batch in eval
        steps=EVAL_STEPS,
        start_delay_secs=60,  # start evaluating after N seconds
        throttle_secs=EVAL_INTERVAL,  # evaluate every N seconds
        exporters=exporter)
    return cn.compat.v1.estimator.train_and_evaluate(estimator, train_spec, eval_spec)  # PORT: `return` added, for the test


