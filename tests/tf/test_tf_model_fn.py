# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
# Ported to colonnade: TF's inputs, expected values and tolerances are kept verbatim;
# graph-mode branches are replaced by their eager equivalents.
"""TF's tensorflow_estimator/python/estimator/model_fn_test.py (r2.15), ported: run on
colonnade by default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf``
(tests/tf/run_against_tf.sh).

Translation: TF builds each spec in a fresh graph (``with tf.Graph().as_default(),
self.cached_session()``), which stays so on TF and is ``graph()``, no context, on
colonnade. ``tf.no_op()`` as a ``train_op`` is a value on colonnade (its ``train_op`` is
what an update returns; ``cn.no_op()`` is ``None``, no op to run); TF's metric tuple
``(tf.no_op(), loss)`` is ``cn.metrics.mean(loss)``'s ``(metric, update)`` pair, and
``tf.keras.metrics.Mean`` is ``cn.metrics.Mean``.

Inventory (every TF method):

- EstimatorSpecTrainTest: ported: testRequiredArgumentsSet, testAllArgumentsSet,
  testLossNumber, testLoss1DTensor, testLossMissing, testLossNotScalar, testTrainOpMissing,
  testTrainOpNotOperationAndTensor, testTrainingChiefHookInvalid, testTrainingHookInvalid,
  testScaffoldInvalid, testReturnDefaultScaffold. Out of scope: testLossFromDifferentGraph,
  testTrainOpFromDifferentGraph (graph/session-only: which graph a tensor is of);
  testLossSparseTensor (colonnade has no SparseTensor type: its sparse values are Arrow
  list arrays).
- EstimatorSpecEvalTest: ported: testRequiredArgumentsSet, testAllArgumentsSet,
  testEvaluationHookInvalid, testTupleMetric (a strict xfail, docs/tf_differences.md
  "`eval_metric_ops` values"), testLoss1DTensor, testLossNumber, testLossMissing,
  testLossNotScalar, testReplaceRaisesConstructorChecks, testReplaceDoesReplace,
  testReplaceNotAllowModeChange, testPredictionsMissingIsOkay, testPredictionsTensor,
  testPredictionsNumber, testEvalMetricOpsNoDict, testEvalMetricOpsNoTuple. Out of scope:
  testLossFromDifferentGraph, testPredictionsFromDifferentGraph,
  testEvalMetricOpsFromDifferentGraphWithMetricTuple,
  testEvalMetricOpsFromDifferentGraphWithMetricObject, testMetricVariablesAddedToCollections
  (graph/session-only: graphs and graph collections); testEvalMetricOpsWithoutUpdates
  (graph/session-only: TF needs the metric's update op in the graph; an eager metric
  not updated is a metric of no rows); testLossSparseTensor, testPredictionsSparseTensor
  (no SparseTensor type).
- EstimatorSpecInferTest: ported: testRequiredArgumentsSet, testAllArgumentsSet,
  testPredictionHookInvalid, testPredictionsMissing, testPredictionsTensor,
  testPredictionsNumber, testExportOutputsNoDict, testExportOutputsValueNotExportOutput,
  testExportOutputsSingleheadMissingDefault, testExportOutputsMultiheadWithDefault,
  testExportOutputsMultiheadMissingDefault, testDefaultExportOutputCreated,
  testDefaultExportOutputCreatedDict. Out of scope: testPredictionsSparseTensor (no
  SparseTensor type).
- LogitFnTest (test_simple_call_logit_fn, test_simple_call_multi_logit_fn,
  test_invalid_logit_fn_results, test_invalid_logit_fn_results_dict): out of scope:
  ``model_fn.call_logit_fn`` is an internal TF helper of the canned estimators of
  ``tf.contrib``, in no public API (colonnade's canned estimators build logits through
  their networks).
"""

import contextlib

from tf_backend import ON_TF, colonnade_differs, constant
from tf_test_case import TFTestCase

if ON_TF:
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.export import export_output
    from tensorflow_estimator.python.estimator.mode_keys import ModeKeys
    from tensorflow_estimator.python.estimator.model_fn import EstimatorSpec

    SessionRunHook = tf.compat.v1.train.SessionRunHook
    Scaffold = tf.compat.v1.train.Scaffold
    metrics_Mean = tf.keras.metrics.Mean
    DEFAULT_SERVING_SIGNATURE_DEF_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    no_op = tf.no_op

    def graph():
        return tf.Graph().as_default()

    def metric_pair(value):
        return (tf.no_op(), value)
else:
    import colonnade as cn

    export_output = cn.estimators.export
    ModeKeys = cn.estimators.ModeKeys
    EstimatorSpec = cn.estimators.EstimatorSpec
    SessionRunHook = cn.estimators.SessionRunHook
    Scaffold = cn.compat.v1.train.Scaffold
    metrics_Mean = cn.metrics.Mean
    DEFAULT_SERVING_SIGNATURE_DEF_KEY = cn.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    graph = contextlib.nullcontext

    def no_op():
        return constant(0)

    def metric_pair(value):
        return cn.metrics.mean(value)


class _FakeHook(SessionRunHook):
    """Fake implementation of `SessionRunHook`."""


class _InvalidHook:
    """Invalid hook (not a subclass of `SessionRunHook`)."""


class _InvalidScaffold:
    """Invalid scaffold (not a subclass of `Scaffold`)."""


class EstimatorSpecTrainTest(TFTestCase):
    """Tests EstimatorSpec in train mode."""

    def testRequiredArgumentsSet(self):
        """Tests that no errors are raised when all required arguments are set."""
        with graph():
            EstimatorSpec(mode=ModeKeys.TRAIN, loss=constant(1.0), train_op=no_op())

    def testAllArgumentsSet(self):
        """Tests that no errors are raised when all arguments are set."""
        with graph():
            loss = constant(1.0)
            predictions = {"loss": loss}
            classes = constant("hello")
            metric_obj = metrics_Mean()
            metric_obj.update_state(loss)
            EstimatorSpec(
                mode=ModeKeys.TRAIN,
                predictions=predictions,
                loss=loss,
                train_op=no_op(),
                eval_metric_ops={
                    "loss": metric_pair(loss),
                    "mean": metric_obj,
                },
                export_outputs={"head_name": export_output.ClassificationOutput(classes=classes)},
                training_chief_hooks=[_FakeHook()],
                training_hooks=[_FakeHook()],
                scaffold=Scaffold(),
                evaluation_hooks=[_FakeHook()],
                prediction_hooks=[_FakeHook()],
            )

    def testLossNumber(self):
        """Tests that error is raised when loss is a number (not Tensor)."""
        with graph():
            with self.assertRaisesRegex(TypeError, "loss must be Tensor"):
                EstimatorSpec(mode=ModeKeys.TRAIN, loss=1.0, train_op=no_op())

    def testLoss1DTensor(self):
        """Tests that no errors are raised when loss is 1D tensor."""
        with graph():
            EstimatorSpec(mode=ModeKeys.TRAIN, loss=constant([1.0]), train_op=no_op())

    def testLossMissing(self):
        with graph():
            with self.assertRaisesRegex(ValueError, "Missing loss"):
                EstimatorSpec(mode=ModeKeys.TRAIN, train_op=no_op())

    def testLossNotScalar(self):
        with graph():
            with self.assertRaisesRegex(ValueError, "Loss must be scalar"):
                EstimatorSpec(mode=ModeKeys.TRAIN, loss=constant([1.0, 2.0]), train_op=no_op())

    def testTrainOpMissing(self):
        with graph():
            with self.assertRaisesRegex(ValueError, "Missing train_op"):
                EstimatorSpec(mode=ModeKeys.TRAIN, loss=constant(1.0))

    def testTrainOpNotOperationAndTensor(self):
        with graph():
            with self.assertRaisesRegex(TypeError, "train_op must be Operation or Tensor"):
                EstimatorSpec(
                    mode=ModeKeys.TRAIN, loss=constant(1.0), train_op="Not an Operation or Tensor"
                )

    def testTrainingChiefHookInvalid(self):
        with graph():
            with self.assertRaisesRegex(TypeError, "All hooks must be SessionRunHook instances"):
                EstimatorSpec(
                    mode=ModeKeys.TRAIN,
                    loss=constant(1.0),
                    train_op=no_op(),
                    training_chief_hooks=[_InvalidHook()],
                )

    def testTrainingHookInvalid(self):
        with graph():
            with self.assertRaisesRegex(TypeError, "All hooks must be SessionRunHook instances"):
                EstimatorSpec(
                    mode=ModeKeys.TRAIN,
                    loss=constant(1.0),
                    train_op=no_op(),
                    training_hooks=[_InvalidHook()],
                )

    def testScaffoldInvalid(self):
        with graph():
            with self.assertRaisesRegex(TypeError, r"scaffold must be tf\.train\.Scaffold"):
                EstimatorSpec(
                    mode=ModeKeys.TRAIN,
                    loss=constant(1.0),
                    train_op=no_op(),
                    scaffold=_InvalidScaffold(),
                )

    def testReturnDefaultScaffold(self):
        with graph():
            estimator_spec = EstimatorSpec(
                mode=ModeKeys.TRAIN, loss=constant(1.0), train_op=no_op()
            )
            self.assertIsNotNone(estimator_spec.scaffold)


class EstimatorSpecEvalTest(TFTestCase):
    """Tests EstimatorSpec in eval mode."""

    def testRequiredArgumentsSet(self):
        """Tests that no errors are raised when all required arguments are set."""
        with graph():
            loss = constant(1.0)
            EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss)

    def testAllArgumentsSet(self):
        """Tests that no errors are raised when all arguments are set."""
        with graph():
            loss = constant(1.0)
            predictions = {"loss": loss}
            classes = constant("hello")
            metric_obj = metrics_Mean()
            metric_obj.update_state(loss)
            EstimatorSpec(
                mode=ModeKeys.EVAL,
                predictions=predictions,
                loss=loss,
                train_op=no_op(),
                eval_metric_ops={
                    "loss": metric_pair(loss),
                    "mean": metric_obj,
                },
                export_outputs={"head_name": export_output.ClassificationOutput(classes=classes)},
                training_chief_hooks=[_FakeHook()],
                training_hooks=[_FakeHook()],
                scaffold=Scaffold(),
                evaluation_hooks=[_FakeHook()],
            )

    def testEvaluationHookInvalid(self):
        with graph():
            with self.assertRaisesRegex(TypeError, "All hooks must be SessionRunHook instances"):
                EstimatorSpec(
                    mode=ModeKeys.EVAL, loss=constant(1.0), evaluation_hooks=[_InvalidHook()]
                )

    @colonnade_differs("`eval_metric_ops` values")
    def testTupleMetric(self):
        """Tests that no errors are raised when a metric is tuple-valued."""
        with graph():
            loss = constant(1.0)
            EstimatorSpec(
                mode=ModeKeys.EVAL,
                loss=loss,
                eval_metric_ops={"some_metric": ((loss, loss, (constant(2), loss)), no_op())},
            )

    def testLoss1DTensor(self):
        """Tests that no errors are raised when loss is 1D tensor."""
        with graph():
            loss = constant([1.0])
            EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss)

    def testLossNumber(self):
        """Tests that error is raised when loss is a number (not Tensor)."""
        with graph():
            with self.assertRaisesRegex(TypeError, "loss must be Tensor"):
                EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": constant(1.0)}, loss=1.0)

    def testLossMissing(self):
        with graph():
            with self.assertRaisesRegex(ValueError, "Missing loss"):
                EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": constant(1.0)})

    def testLossNotScalar(self):
        with graph():
            loss = constant([1.0, 2.0])
            with self.assertRaisesRegex(ValueError, "Loss must be scalar"):
                EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss)

    def testReplaceRaisesConstructorChecks(self):
        with graph():
            loss = constant(1.0)
            spec = EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss)
            with self.assertRaisesRegex(ValueError, "Loss must be scalar"):
                spec._replace(loss=constant([1.0, 2.0]))

    def testReplaceDoesReplace(self):
        with graph():
            loss = constant(1.0)
            spec = EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss)
            new_spec = spec._replace(predictions={"m": loss})
            self.assertEqual(["m"], list(new_spec.predictions.keys()))

    def testReplaceNotAllowModeChange(self):
        with graph():
            loss = constant(1.0)
            spec = EstimatorSpec(mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss)
            spec._replace(mode=ModeKeys.EVAL)
            with self.assertRaisesRegex(ValueError, "mode of EstimatorSpec cannot be changed"):
                spec._replace(mode=ModeKeys.TRAIN)

    def testPredictionsMissingIsOkay(self):
        with graph():
            EstimatorSpec(mode=ModeKeys.EVAL, loss=constant(1.0))

    def testPredictionsTensor(self):
        """Tests that no error is raised when predictions is Tensor (not dict)."""
        with graph():
            loss = constant(1.0)
            EstimatorSpec(mode=ModeKeys.EVAL, predictions=loss, loss=loss)

    def testPredictionsNumber(self):
        with graph():
            with self.assertRaisesRegex(TypeError, r"predictions\[number\] must be Tensor"):
                EstimatorSpec(mode=ModeKeys.EVAL, predictions={"number": 1.0}, loss=constant(1.0))

    def testEvalMetricOpsNoDict(self):
        with graph():
            loss = constant(1.0)
            with self.assertRaisesRegex(TypeError, "eval_metric_ops must be a dict"):
                EstimatorSpec(
                    mode=ModeKeys.EVAL, predictions={"loss": loss}, loss=loss, eval_metric_ops=loss
                )

    def testEvalMetricOpsNoTuple(self):
        with graph():
            loss = constant(1.0)
            with self.assertRaisesRegex(
                TypeError,
                (
                    r"Values of eval_metric_ops must be \(metric_value, update_op\) "
                    "tuples"
                ),
            ):
                EstimatorSpec(
                    mode=ModeKeys.EVAL,
                    predictions={"loss": loss},
                    loss=loss,
                    eval_metric_ops={"loss": loss},
                )


class EstimatorSpecInferTest(TFTestCase):
    """Tests EstimatorSpec in infer mode."""

    def testRequiredArgumentsSet(self):
        """Tests that no errors are raised when all required arguments are set."""
        with graph():
            EstimatorSpec(mode=ModeKeys.PREDICT, predictions={"loss": constant(1.0)})

    def testAllArgumentsSet(self):
        """Tests that no errors are raised when all arguments are set."""
        with graph():
            loss = constant(1.0)
            predictions = {"loss": loss}
            classes = constant("hello")
            metric_obj = metrics_Mean()
            metric_obj.update_state(loss)
            EstimatorSpec(
                mode=ModeKeys.PREDICT,
                predictions=predictions,
                loss=loss,
                train_op=no_op(),
                eval_metric_ops={
                    "loss": metric_pair(loss),
                    "mean": metric_obj,
                },
                export_outputs={"head_name": export_output.ClassificationOutput(classes=classes)},
                training_chief_hooks=[_FakeHook()],
                training_hooks=[_FakeHook()],
                scaffold=Scaffold(),
                evaluation_hooks=[_FakeHook()],
                prediction_hooks=[_FakeHook()],
            )

    def testPredictionHookInvalid(self):
        with graph():
            with self.assertRaisesRegex(TypeError, "All hooks must be SessionRunHook instances"):
                EstimatorSpec(
                    mode=ModeKeys.PREDICT,
                    predictions=constant(1.0),
                    prediction_hooks=[_InvalidHook()],
                )

    def testPredictionsMissing(self):
        with graph():
            with self.assertRaisesRegex(ValueError, "Missing predictions"):
                EstimatorSpec(mode=ModeKeys.PREDICT)

    def testPredictionsTensor(self):
        """Tests that no error is raised when predictions is Tensor (not dict)."""
        with graph():
            EstimatorSpec(mode=ModeKeys.PREDICT, predictions=constant(1.0))

    def testPredictionsNumber(self):
        with graph():
            with self.assertRaisesRegex(TypeError, r"predictions\[number\] must be Tensor"):
                EstimatorSpec(mode=ModeKeys.PREDICT, predictions={"number": 1.0})

    def testExportOutputsNoDict(self):
        with graph():
            predictions = {"loss": constant(1.0)}
            classes = constant("hello")
            with self.assertRaisesRegex(TypeError, "[`]*export_outputs[`]* must be dict"):
                EstimatorSpec(
                    mode=ModeKeys.PREDICT,
                    predictions=predictions,
                    export_outputs=export_output.ClassificationOutput(classes=classes),
                )

    def testExportOutputsValueNotExportOutput(self):
        with graph():
            predictions = {"loss": constant(1.0)}
            with self.assertRaisesRegex(
                TypeError, r"Values in [`]*export_outputs[`]* must be ExportOutput objects."
            ):
                EstimatorSpec(
                    mode=ModeKeys.PREDICT,
                    predictions=predictions,
                    export_outputs={"head_name": predictions},
                )

    def testExportOutputsSingleheadMissingDefault(self):
        with graph():
            predictions = {"loss": constant(1.0)}
            output_1 = constant([1.0])
            regression_output = export_output.RegressionOutput(value=output_1)
            export_outputs = {
                "head-1": regression_output,
            }
            estimator_spec = EstimatorSpec(
                mode=ModeKeys.PREDICT, predictions=predictions, export_outputs=export_outputs
            )
            expected_export_outputs = {
                DEFAULT_SERVING_SIGNATURE_DEF_KEY: regression_output,
                "head-1": regression_output,
            }
            self.assertEqual(expected_export_outputs, estimator_spec.export_outputs)

    def testExportOutputsMultiheadWithDefault(self):
        with graph():
            predictions = {"loss": constant(1.0)}
            output_1 = constant([1.0])
            output_2 = constant(["2"])
            output_3 = constant(["3"])
            export_outputs = {
                DEFAULT_SERVING_SIGNATURE_DEF_KEY: export_output.RegressionOutput(value=output_1),
                "head-2": export_output.ClassificationOutput(classes=output_2),
                "head-3": export_output.PredictOutput(outputs={"some_output_3": output_3}),
            }
            estimator_spec = EstimatorSpec(
                mode=ModeKeys.PREDICT, predictions=predictions, export_outputs=export_outputs
            )
            self.assertEqual(export_outputs, estimator_spec.export_outputs)

    def testExportOutputsMultiheadMissingDefault(self):
        with graph():
            predictions = {"loss": constant(1.0)}
            output_1 = constant([1.0])
            output_2 = constant(["2"])
            output_3 = constant(["3"])
            export_outputs = {
                "head-1": export_output.RegressionOutput(value=output_1),
                "head-2": export_output.ClassificationOutput(classes=output_2),
                "head-3": export_output.PredictOutput(outputs={"some_output_3": output_3}),
            }
            with self.assertRaisesRegex(
                ValueError, "Multiple [`]*export_outputs[`]* were provided"
            ):
                EstimatorSpec(
                    mode=ModeKeys.PREDICT, predictions=predictions, export_outputs=export_outputs
                )

    def testDefaultExportOutputCreated(self):
        """Ensure that a default PredictOutput is created for export."""
        with graph():
            predictions = constant(1.0)
            self._assertDefaultExportOutputForPredictions(predictions)

    def testDefaultExportOutputCreatedDict(self):
        """Ensure that a default PredictOutput is created for export for dicts."""
        with graph():
            predictions = {"loss": constant(1.0), "score": constant(10.0)}
            self._assertDefaultExportOutputForPredictions(predictions)

    def _assertDefaultExportOutputForPredictions(self, predictions):
        spec = EstimatorSpec(mode=ModeKeys.PREDICT, predictions=predictions)

        expected = export_output.PredictOutput(predictions).outputs
        serving_output = spec.export_outputs[DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        self.assertEqual(serving_output.outputs, expected)
