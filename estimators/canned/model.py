"""A canned estimator's ``model_fn``: a network of feature columns, a head, and one
optimizer per part of the network.

:class:`CannedModelFn` is what a canned estimator passes to ``Estimator`` (TF's
``DNNClassifierV2`` passes its ``_model_fn``): a recipe that the estimator builds, with
its global step and seeded initializers, into a :class:`CannedModel`. Its ``spec`` is
the network's logits through the head's ``create_estimator_spec``, whose
``train_op_fn`` updates each part (the linear and the DNN part of wide&deep) with its own
optimizer. Called as a function, a ``CannedModel`` is a ``model_fn`` with TF's signature.
"""

from __future__ import annotations

import copy

import numpy as np

from ... import core
from ... import data as cn_data
from ..export.writer import export_estimator
from ..runtime.tf_names import MODEL_PREFIX
from ..spec.model_fn import EstimatorSpec, ModeKeys, is_checkpointed_variable

# The momentum a Momentum optimizer named by string gets (a common choice; TF has none).
NAMED_MOMENTUM = 0.9
# The epsilon an Adam optimizer named by string gets: Keras' (TF 2.15's canned estimators
# build tf.keras.optimizers.legacy.Adam from the name), not TF1's 1e-8.
NAMED_ADAM_EPSILON = 1e-7


def resolve_optimizer(optimizer, default_factory, learning_rate, global_step=None):
    """An optimizer from an instance, a name ('Adam', 'Ftrl', ... see
    :data:`colonnade.core.OPTIMIZERS`), a dict ``{"name": ..., <constructor arguments>}``
    (a config file's optimizer table), a callable returning one, or None
    (``default_factory()``).

    A name, or a dict without a ``learning_rate``, gets the estimator's ``learning_rate``
    for names (a number, or a function of the optimizer class), as tf.estimator does;
    ``"Momentum"`` gets ``momentum=0.9`` unless set, ``"Adam"`` Keras' ``epsilon=1e-7``
    (what TF 2.15's canned estimators build from the name) and ``"AdagradDA"`` the
    estimator's ``global_step``, which it needs.

    >>> opt = resolve_optimizer({"name": "Momentum", "use_nesterov": True}, None, 0.2)
    >>> type(opt).__name__, opt.learning_rate
    ('MomentumOptimizer', 0.2)
    """
    if optimizer is None:
        return default_factory()
    if isinstance(optimizer, str):
        optimizer = {"name": optimizer}
    if isinstance(optimizer, dict):
        kwargs = {k: v for k, v in optimizer.items() if k != "name"}
        cls = core.optimizer_class(optimizer.get("name"))
        if callable(learning_rate):
            learning_rate = learning_rate(cls)
        kwargs.setdefault("learning_rate", learning_rate)
        if cls is core.MomentumOptimizer:
            kwargs.setdefault("momentum", NAMED_MOMENTUM)
        if cls is core.AdamOptimizer:
            kwargs.setdefault("epsilon", NAMED_ADAM_EPSILON)
        if cls is core.AdagradDAOptimizer:
            kwargs.setdefault("global_step", global_step)
        return cls(**kwargs)
    if callable(optimizer) and not hasattr(optimizer, "apply_gradients"):
        if global_step is None or core.current_store() is not None:
            return optimizer()
        # TF calls it in the model_fn's graph: get_global_step() there is the estimator's
        store = core.VariableStore()
        store.global_step = global_step
        with store.as_default():
            return optimizer()
    if not hasattr(optimizer, "apply_gradients"):
        raise TypeError(
            f"optimizer must be a name, a {{'name': ...}} dict, an optimizer or a callable "
            f"returning one; got {type(optimizer).__name__}"
        )
    return optimizer


class CannedModelFn:
    """The recipe of a canned model: its ``head`` and ``build(global_step, init_rng)``,
    which makes the network and returns ``(network, parts)``, ``parts`` a list of
    ``(name, optimizer, variables)``."""

    def __init__(self, head, build):
        self.head = head
        self.build = build

    def bind(self, global_step, init_rng) -> CannedModel:
        """Build the model for an estimator with this global step and initializers."""
        network, parts = self.build(global_step, init_rng)
        return CannedModel(network, self.head, parts)


class CannedModel:
    """A network of feature columns through a head, each part of the network updated by
    its own optimizer (see the module): the :class:`~..runtime.model.Model` of a canned
    estimator."""

    def __init__(self, network, head, parts):
        self.network = network
        self.head = head
        self.parts = list(parts)
        self.train_summaries: dict = {}  # the last training step's summaries (TF's layers')

    def __repr__(self) -> str:
        return f"CannedModel({[name for name, _ in self.column_parts()]})"

    @property
    def model_fn(self) -> CannedModel:
        """The model itself: called, it is a ``model_fn``."""
        return self

    @property
    def params(self) -> dict:
        """``{}``: a canned model takes no ``params``."""
        return {}

    def describe(self, class_name: str, model_dir: str) -> str:
        """``<class_name>(model_dir=..., <part>_columns=[...], hidden_units=...,
        label_dimension=... or n_classes=...)``."""
        args = [f"model_dir={model_dir!r}"]
        for part, columns in self.column_parts():
            args.append(f"{part}_columns={[c.name for c in columns]}")
        if self.network.dnn is not None:
            args.append(f"hidden_units={self.network.dnn.hidden_units}")
        if hasattr(self.head, "label_dimension"):
            args.append(f"label_dimension={self.head.label_dimension}")
        else:
            args.append(f"n_classes={len(self.head.class_names)}")
        return f"{class_name}({', '.join(args)})"

    def lists_variable(self, name: str) -> bool:
        """The network's variables, the global step and the optimizers' slots (as TF
        lists them)."""
        return is_checkpointed_variable(name)

    def __call__(self, features, labels, mode, config=None) -> EstimatorSpec:
        """TF's ``model_fn`` signature: the spec of one batch (dropout draws fresh
        randomness)."""
        rng = np.random.default_rng() if mode == ModeKeys.TRAIN else None
        return self.spec(features, labels, mode, rng=rng)

    def trackables(self) -> dict:
        """What a checkpoint holds besides the global step: the network and each part's
        optimizer."""
        return {"model": self.network, **{name: opt for name, opt, _ in self.parts}}

    def reset_local_variables(self) -> None:
        """Nothing to reset: a canned network's metrics keep their state in metric
        objects made anew for each evaluation, not in variables."""

    def variables(self) -> dict:
        """The network's variables by TF's name, e.g. ``dnn/hiddenlayer_0/kernel``."""
        named = core.Checkpoint(model=self.network).named_variables()
        return {k[len(MODEL_PREFIX) :]: v for k, v in named.items()}

    def input_columns(self, weight_column=None) -> list:
        """The raw columns the model reads (read from files with projection pushdown)."""
        columns = cn_data.required_columns(self.network.feature_columns, weight=weight_column)
        return sorted(columns)

    def column_parts(self) -> list:
        """``(part name, feature columns)`` of each part of the network."""
        parts = []
        if self.network.linear is not None:
            parts.append(("linear", list(self.network.linear.linear.feature_columns)))
        if self.network.dnn is not None:
            parts.append(("dnn", list(self.network.dnn.input_layer.feature_columns)))
        return parts

    def hook_scope(self, global_step):
        """Where hooks' ``begin``/``end`` run: ``cn.train.get_global_step()`` is
        ``global_step`` (TF's default graph holds it)."""
        store = core.VariableStore()
        store.global_step = global_step
        return store.as_default()

    def spec(self, features, labels, mode, cache=None, rng=None) -> EstimatorSpec:
        """The network's logits of the batch (``cache``: its feature transforms, done
        ahead on the input thread) through the head's ``create_estimator_spec``."""
        if labels is None and mode != ModeKeys.PREDICT:
            raise ValueError(
                "training needs labels: build the Dataset with label=... or have input_fn "
                "yield (features, labels)"
                if mode == ModeKeys.TRAIN
                else "evaluation needs labels: build the Dataset with label=..."
            )
        if mode == ModeKeys.TRAIN:
            with core.model_calls.recording() as call:
                logits = self.network.logits(features, training=True, rng=rng, cache=cache)
            self.train_summaries = call.summaries
        else:
            with core.no_grad():
                logits = self.network.logits(features, training=False, rng=None, cache=cache)
        return self.head.create_estimator_spec(
            features, mode, logits, labels, train_op_fn=self.apply_gradients
        )

    def apply_gradients(self, loss):
        """The canned ``train_op_fn``: the gradient of the recorded ``loss`` for every
        part's variables, each part applied by its own optimizer."""
        variables = [v for _, _, part in self.parts for v in part]
        grads = core.gradients([loss], variables)
        start = 0
        for _, optimizer, part in self.parts:
            pairs = list(zip(grads[start : start + len(part)], part))
            start += len(part)
            if any(g is not None for g, _ in pairs):
                optimizer.apply_gradients(pairs)
        return loss

    def ensure_built(self, features, labels, mode, restore_new) -> None:
        """Nothing to build: a canned network makes its variables when it is made."""

    def spec_hooks(self, features, labels, mode, restore_new) -> list:
        """A canned model's spec brings no hooks."""
        return []

    def for_worker(self) -> CannedModel:
        """A copy with state-free copies of the optimizers (a worker's: the parameter
        servers hold their state); the network and variables are shared until pickled."""
        out = copy.copy(self)
        out.parts = [(name, opt.fresh_copy(), variables) for name, opt, variables in self.parts]
        return out

    def export(
        self, estimator, export_dir_base, serving_input_receiver_fn, assets_extra, checkpoint_path
    ) -> str:
        """The head, the network's declarative spec and the weights of ``checkpoint_path``
        (default: model_dir's latest), see
        :func:`~colonnade.estimators.export.writer.export_estimator`."""
        if checkpoint_path is None and estimator.latest_checkpoint() is None:
            raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
        with estimator.train_state.from_checkpoint(checkpoint_path):
            return export_estimator(
                estimator, export_dir_base, serving_input_receiver_fn, assets_extra
            )
