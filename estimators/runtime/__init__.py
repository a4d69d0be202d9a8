"""The estimator runtime: ``Estimator``, its ``TrainState``, ``RunConfig``, the one training
loop, evaluation and prediction, Keras-style ``fit`` and callbacks, ``train_and_evaluate``,
and the :class:`~.model.Model` protocol by which it knows the model it trains (a user's
``model_fn`` or a canned network), never by its kind.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
