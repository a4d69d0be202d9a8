"""The model an ``Estimator`` trains: the one protocol the runtime knows it by.

An ``Estimator`` holds one :class:`Model` and asks it, never its class, for everything
that differs between the kinds of model: a user's ``model_fn`` in its variable store
(:class:`~colonnade.estimators.runtime.user_model.UserModel`) and a canned network of
feature columns through a head
(:class:`~colonnade.estimators.canned.model.CannedModel`) both implement it. The
estimator gets its model either from a :class:`ModelRecipe` (what a canned estimator
passes as its ``model_fn``), bound with the estimator's global step and seeded
initializers, or by wrapping a plain ``model_fn`` in a ``UserModel``.

The methods below are exactly the ones the runtime calls (``Estimator``, ``TrainState``,
the training loop, evaluation and prediction, the hooks, distributed training, the
exports): a third kind of model is any object that has them, given by a recipe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from ... import core
from .user_model import UserModel


@runtime_checkable
class Model(Protocol):
    """What an estimator trains, evaluates, predicts with, checkpoints and exports.

    Attributes:
        model_fn: the ``model_fn`` the estimator calls (a canned model is its own: called,
            it is a ``model_fn`` with TF's signature).
        params: the ``params`` the ``model_fn`` gets (a canned model's: ``{}``).
        head: a canned model's head, or ``None``.
        network: the seam the input pipeline and the loop read: ``transform`` a batch's
            features ahead of the step, ``prepare`` what the step needs, its ``layers``
            and ``feature_columns``, and ``checkpoint_children`` for checkpoints.
        parts: ``(name, optimizer, variables)`` of each part of the network that an
            optimizer of its own updates (empty when the optimizers live in a
            ``model_fn``'s variable store).
        train_summaries: the ``cn.summary`` values of the last training step, by tag.
    """

    model_fn: Callable
    params: dict
    head: object
    network: object
    parts: list
    train_summaries: dict

    def trackables(self) -> dict:
        """What a checkpoint holds besides the global step, by checkpoint key (``model``,
        and the optimizers)."""
        ...

    def variables(self) -> dict:
        """The model's variables by TF's name, e.g. ``dnn/hiddenlayer_0/kernel``."""
        ...

    def reset_local_variables(self) -> None:
        """Give the model's local variables (evaluation state, never checkpointed) their
        initial values, as each ``train``/``evaluate``/``predict`` call starts (TF's
        ``local_init_op`` in each new session)."""
        ...

    def input_columns(self, weight_column=None):
        """The raw columns the model reads (read from files with projection pushdown), or
        ``None`` when it may read any."""
        ...

    def column_parts(self) -> list:
        """``(part name, feature columns)`` of each part of the network, for a summary."""
        ...

    def hook_scope(self, global_step):
        """A context where hooks' ``begin``/``end`` run, in which
        ``cn.train.get_global_step()`` is ``global_step``."""
        ...

    def spec(self, features, labels, mode, cache=None, rng=None):
        """The ``EstimatorSpec`` of one batch in ``mode`` (``cache``: its feature
        transforms, done ahead on the input thread; ``rng``: a training step's
        randomness)."""
        ...

    def ensure_built(self, features, labels, mode, restore_new) -> None:
        """Before the first batch of ``mode``: make the variables the model makes in it,
        and call ``restore_new()`` to give new ones their values."""
        ...

    def spec_hooks(self, features, labels, mode, restore_new) -> list:
        """The hooks the model's spec brings for ``mode``, asked once per run."""
        ...

    def for_worker(self) -> Model:
        """A copy for a distributed worker (state-free optimizers); ``TypeError`` for a
        model that cannot train on workers."""
        ...

    def lists_variable(self, name: str) -> bool:
        """Whether ``Estimator.get_variable_names`` lists the checkpoint key ``name``
        (and ``get_variable_value`` reads it)."""
        ...

    def describe(self, class_name: str, model_dir: str) -> str:
        """The estimator's ``repr``: its class (``class_name``), ``model_dir`` and what
        shapes the model."""
        ...

    def export(
        self, estimator, export_dir_base, serving_input_receiver_fn, assets_extra, checkpoint_path
    ) -> str:
        """Write ``estimator``'s export of this model under ``export_dir_base/<timestamp>``
        (see ``Estimator.export_saved_model``) and return its path. ``estimator.model`` is
        this model, or a wrapper of it (``forward_features``, ``add_metrics``), whose
        additions the export records."""
        ...


@runtime_checkable
class ModelRecipe(Protocol):
    """A model's recipe: ``bind(global_step, init_rng)`` builds the :class:`Model` an
    estimator trains (its network's variables drawn from ``init_rng``)."""

    def bind(self, global_step, init_rng) -> Model: ...


MODEL_MEMBERS = tuple(
    sorted({*Model.__annotations__, *(n for n in vars(Model) if not n.startswith("_"))})
)
"""The attributes and methods a :class:`Model` has."""


def model_of(
    model_fn, params, config, seed: np.random.SeedSequence
) -> tuple[Model, core.Variable, np.random.Generator]:
    """``(model, global_step, init_rng)`` of an estimator given ``model_fn``: a
    :class:`ModelRecipe` bound with a new global step and ``init_rng`` (drawn from
    ``seed``), or a plain ``model_fn`` wrapped in a ``UserModel`` with ``params``,
    ``config`` and its store's own generator (also drawn from ``seed``)."""
    init_rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(0,)))
    global_step = core.Variable(np.int64(0), name="global_step", trainable=False, dtype=np.int64)
    if isinstance(model_fn, ModelRecipe):
        model = model_fn.bind(global_step, init_rng)
        missing = [name for name in MODEL_MEMBERS if not hasattr(model, name)]
        if missing:
            raise TypeError(
                f"{type(model_fn).__name__}.bind must return a Model "
                f"(colonnade.estimators.runtime.model.Model); its {type(model).__name__} "
                f"lacks {missing}"
            )
        return model, global_step, init_rng
    store_rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(1,)))
    return UserModel(model_fn, params, config, global_step, store_rng), global_step, init_rng


__all__ = ["Model", "ModelRecipe", "model_of"]
