"""What an ``Estimator`` is given besides a plain ``model_fn``: a recipe for its model.

A canned estimator passes a recipe (:class:`~colonnade.estimators.canned.model.CannedModelFn`)
that the estimator binds, with its global step and seeded initializers, into the model it
trains; a plain ``model_fn`` is wrapped in a
:class:`~colonnade.estimators.runtime.user_model.UserModel`. The runtime knows the recipe
by this protocol alone, never by its class.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class ModelRecipe(Protocol):
    """A model's recipe: ``bind(global_step, init_rng)`` builds the model an estimator
    trains (its network's variables drawn from ``init_rng``)."""

    def bind(self, global_step, init_rng): ...


__all__ = ["ModelRecipe"]
