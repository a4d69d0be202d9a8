"""The estimator runtime: ``Estimator``, its ``TrainState``, ``RunConfig``, the one training
loop, evaluation and prediction, Keras-style ``fit`` and callbacks, ``train_and_evaluate``,
and the :class:`~colonnade.estimators.runtime.model.Model` protocol every model meets.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
