"""The estimator runtime: ``Estimator``, its ``TrainState``, ``RunConfig``, the one training
loop, evaluation and prediction, Keras-style ``fit`` and callbacks, ``train_and_evaluate``,
and the :class:`~.model.ModelRecipe` protocol by which it knows a canned model.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
