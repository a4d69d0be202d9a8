"""TF1's optimizers (``tf.train.*Optimizer``), in order of increasing complexity, and
the registry of their names.

Each class names its slots (TF1's names and initial values), its hyperparameters with
their validation rules, and the pure update function of
:mod:`colonnade.core.optimizer_updates` that holds its math; everything else (gradients,
sparse updates, ``minimize``, the checkpoint protocol) is
:class:`~colonnade.core.optimizer_base.Optimizer`'s.

>>> opt = optimizer_class("ftrl")(0.1, l1_regularization_strength=0.5)
>>> type(opt).__name__, opt.get_slot_names(), opt.hyperparameters["l1"]
('FtrlOptimizer', ['accum', 'linear'], 0.5)
"""

from __future__ import annotations

import numpy as np

from . import optimizer_updates as updates
from .backend import get_xp
from .optimizer_base import Optimizer, scalar
from .optimizer_checks import check_hyperparameter
from .variables import variable_owning

__all__ = [
    "OPTIMIZERS",
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "LazyAdamOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "optimizer_class",
]

_LR = ("learning_rate", "nonnegative")
_L1_L2_RULES = {
    "learning_rate": _LR,
    "l1": ("l1_regularization_strength", "nonnegative"),
    "l2": ("l2_regularization_strength", "nonnegative"),
}


def _rate_l1_l2(learning_rate, l1_regularization_strength, l2_regularization_strength) -> dict:
    """The hyperparameters of the optimizers with L1/L2 terms, by their update's names."""
    return {
        "learning_rate": learning_rate,
        "l1": l1_regularization_strength,
        "l2": l2_regularization_strength,
    }


class GradientDescentOptimizer(Optimizer):
    """``tf.train.GradientDescentOptimizer``: ``param <- param - lr * g``. No slots.

    >>> import colonnade as cn
    >>> w = cn.core.Variable([1.0, 2.0])
    >>> cn.train.GradientDescentOptimizer(0.5).apply_gradients([([2.0, 2.0], w)])
    >>> w.numpy().tolist()
    [0.0, 1.0]
    """

    _update = staticmethod(updates.gradient_descent_update)

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(
            use_locking, name, {"learning_rate": learning_rate}, {"learning_rate": _LR}
        )


class MomentumOptimizer(Optimizer):
    """``tf.train.MomentumOptimizer``, slot ``"momentum"`` (``a``, starts at 0)::

        a <- momentum * a + g
        param <- param - lr * a                        (use_nesterov=False)
        param <- param - lr * g - lr * momentum * a    (use_nesterov=True)

    A sparse gradient updates (and decays the accumulator of) only its rows, as TF1.
    """

    _update = staticmethod(updates.momentum_update)

    def __init__(
        self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False
    ):
        super().__init__(
            use_locking,
            name,
            {"learning_rate": learning_rate, "momentum": momentum, "use_nesterov": use_nesterov},
            {"learning_rate": _LR, "momentum": ("momentum", "nonnegative")},
        )

    def _slot_specs(self):
        return [("momentum", 0.0, self._name)]


class AdagradOptimizer(Optimizer):
    """``tf.train.AdagradOptimizer``, slot ``"accumulator"`` (``n``, starts at
    ``initial_accumulator_value`` > 0)::

        n <- n + g^2
        param <- param - lr * g / sqrt(n)
    """

    _update = staticmethod(updates.adagrad_update)

    def __init__(
        self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"
    ):
        check_hyperparameter("initial_accumulator_value", initial_accumulator_value, "positive")
        self._initial_accumulator_value = float(initial_accumulator_value)
        super().__init__(
            use_locking, name, {"learning_rate": learning_rate}, {"learning_rate": _LR}
        )

    def _slot_specs(self):
        return [("accumulator", self._initial_accumulator_value, self._name)]


class AdagradDAOptimizer(Optimizer):
    """``tf.train.AdagradDAOptimizer`` (Adagrad dual averaging, for sparse linear models).

    ``global_step`` (an integer Variable, required as in TF) gives ``T = global_step + 1``
    at each update; pass the same Variable to ``apply_gradients`` to advance it. Slots
    ``"gradient_accumulator"`` (``z``, 0) and ``"gradient_squared_accumulator"`` (``n``,
    starts at ``initial_gradient_squared_accumulator_value`` > 0)::

        z <- z + g;  n <- n + g^2
        param <- -lr * sign(z) * max(|z| - l1 * T, 0) / (l2 * T * lr + sqrt(n))
    """

    _update = staticmethod(updates.adagrad_da_update)

    def __init__(
        self,
        learning_rate,
        global_step,
        initial_gradient_squared_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="AdagradDA",
    ):
        check_hyperparameter(
            "initial_gradient_squared_accumulator_value",
            initial_gradient_squared_accumulator_value,
            "positive",
        )
        if global_step is None:
            raise ValueError("AdagradDAOptimizer needs global_step, an integer Variable")
        self._global_step = global_step
        self._initial_gsa = float(initial_gradient_squared_accumulator_value)
        hyper = _rate_l1_l2(learning_rate, l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name, hyper, _L1_L2_RULES)

    def _slot_specs(self):
        return [
            ("gradient_accumulator", 0.0, self._name),
            ("gradient_squared_accumulator", self._initial_gsa, self._name),
        ]

    def _prepare(self, hyper, step):
        return hyper, int(scalar(self._global_step)) + 1


class AdadeltaOptimizer(Optimizer):
    """``tf.train.AdadeltaOptimizer``, slots ``"accum"`` and ``"accum_update"`` (start 0)::

    accum <- rho * accum + (1 - rho) * g^2
    dx = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
    accum_update <- rho * accum_update + (1 - rho) * dx^2
    param <- param - lr * dx
    """

    _update = staticmethod(updates.adadelta_update)

    def __init__(
        self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"
    ):
        super().__init__(
            use_locking,
            name,
            {"learning_rate": learning_rate, "rho": rho, "epsilon": epsilon},
            {
                "learning_rate": _LR,
                "rho": ("rho", "unit"),
                "epsilon": ("epsilon", "nonnegative"),
            },
        )

    def _slot_specs(self):
        return [("accum", 0.0, self._name), ("accum_update", 0.0, self._name)]


_ADAM_RULES = {
    "learning_rate": _LR,
    "beta1": ("beta1", "unit_open"),
    "beta2": ("beta2", "unit_open"),
    "epsilon": ("epsilon", "nonnegative"),
}


class AdamOptimizer(Optimizer):
    """``tf.train.AdamOptimizer``, slots ``"m"`` and ``"v"`` (start at 0), non-slot
    ``beta1_power`` and ``beta2_power`` (``beta^t``, advanced once per call)::

        lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
        m <- beta1 * m + (1 - beta1) * g;   v <- beta2 * v + (1 - beta2) * g^2
        param <- param - lr_t * m / (sqrt(v) + epsilon)

    ``epsilon`` is the paper's "epsilon hat". As in TF1, a sparse gradient decays ``m``
    and ``v`` -- and so moves the parameter -- on *every* row, which costs a pass over the
    whole table; :class:`LazyAdamOptimizer` updates only the batch's rows.
    """

    _update = staticmethod(updates.adam_update)
    _sparse_updates_all_rows = True

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        use_locking=False,
        name="Adam",
    ):
        super().__init__(
            use_locking,
            name,
            {"learning_rate": learning_rate, "beta1": beta1, "beta2": beta2, "epsilon": epsilon},
            _ADAM_RULES,
        )

    def _slot_specs(self):
        return [("m", 0.0, self._name), ("v", 0.0, self._name)]

    def _create_non_slots(self, var_list):
        """TF1's ``beta1_power``/``beta2_power`` (start at beta1/beta2, dtype of the first
        variable)."""
        non_slot = self.training_state.non_slot
        if "beta1_power" in non_slot or not var_list:
            return
        first = var_list[0]
        xp, dtype = get_xp(first.value), first.value.dtype
        hyper = self.resolved_hyperparameters(int(scalar(self.iterations)))
        for key in ("beta1", "beta2"):
            power = variable_owning(xp.asarray(hyper[key], dtype=dtype), f"{key}_power")
            non_slot[f"{key}_power"] = power

    def _prepare(self, hyper, step):
        non_slot = self.training_state.non_slot
        hyper = dict(hyper)
        hyper["beta1_power"] = scalar(non_slot["beta1_power"])
        hyper["beta2_power"] = scalar(non_slot["beta2_power"])
        return hyper, step

    def _finish(self, hyper):
        for key in ("beta1", "beta2"):
            power = self.training_state.non_slot[f"{key}_power"]
            power.value = power.value * hyper[key]

    def set_powers_from_step(self) -> None:
        """Set ``beta1_power`` and ``beta2_power`` to ``beta^(iterations + 1)``, what they
        hold after ``iterations`` updates: for a checkpoint that keeps only the step count.
        Keras' Adam (TF 2's canned estimators) keeps ``iter`` and computes the powers from
        it with the same update (``ApplyAdam``), so its state is ``m``, ``v`` and ``iter``.

        >>> import numpy as np
        >>> opt = AdamOptimizer(beta1=0.5, beta2=0.25)
        >>> from colonnade.core import Variable
        >>> opt.create_slots([Variable(np.zeros(2, np.float32))])
        >>> _ = opt.iterations.assign(2)
        >>> opt.set_powers_from_step()
        >>> [float(v.numpy()) for k, v in sorted(opt.non_slot_variables().items()) if "power" in k]
        [0.125, 0.015625]
        """
        step = int(scalar(self.iterations))
        hyper = self.resolved_hyperparameters(step)
        for key in ("beta1", "beta2"):
            power = self.training_state.non_slot[f"{key}_power"]
            power.assign(np.asarray(hyper[key], np.float64) ** (step + 1))


class LazyAdamOptimizer(AdamOptimizer):
    """Adam whose sparse updates touch only the batch's rows (``tf.contrib.opt``'s
    ``LazyAdamOptimizer``; an extra, not in ``tf.train``).

    Dense gradients get exactly :class:`AdamOptimizer`'s update. For an
    :class:`IndexedRows` gradient, ``m``, ``v`` and the parameter change only on the
    gathered rows (with the shared ``beta1_power``/``beta2_power``), so a step costs the
    batch, not the table -- the usual choice for large embeddings. Arguments, slot names
    and the default ``name`` ("Adam") are Adam's.
    """

    _sparse_updates_all_rows = False


class FtrlOptimizer(Optimizer):
    """``tf.train.FtrlOptimizer`` (FTRL-Proximal), slots ``"accum"`` (``n``, starts at
    ``initial_accumulator_value`` >= 0) and ``"linear"`` (``z``, 0); ``p = -learning_rate_power``::

        g_s = g + 2 * l2_shrinkage * param;   n_new = n + g^2
        z <- z + g_s - (n_new^p - n^p) / lr * param
        param <- (l1 * sign(z) - z) / (n_new^p / lr + 2 * l2)  if |z| > l1, else 0
        n <- n_new

    ``beta`` (TF 2's addition) adds ``beta / (2 * lr)`` to ``l2``. ``accum_name`` and
    ``linear_name`` rename the slot *variables* (not the ``get_slot`` names), as TF's.
    """

    _update = staticmethod(updates.ftrl_update)

    def __init__(
        self,
        learning_rate,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="Ftrl",
        accum_name=None,
        linear_name=None,
        l2_shrinkage_regularization_strength=0.0,
        beta=None,
    ):
        check_hyperparameter("initial_accumulator_value", initial_accumulator_value, "nonnegative")
        self._initial_accumulator_value = float(initial_accumulator_value)
        self._accum_name = accum_name
        self._linear_name = linear_name
        super().__init__(
            use_locking,
            name,
            {
                "learning_rate": learning_rate,
                "learning_rate_power": learning_rate_power,
                "l1": l1_regularization_strength,
                "l2": l2_regularization_strength,
                "l2_shrinkage": l2_shrinkage_regularization_strength,
                "beta": 0.0 if beta is None else beta,
            },
            {
                "learning_rate": ("learning_rate", "positive"),
                "learning_rate_power": ("learning_rate_power", "nonpositive"),
                "l1": ("l1_regularization_strength", "nonnegative"),
                "l2": ("l2_regularization_strength", "nonnegative"),
                "l2_shrinkage": ("l2_shrinkage_regularization_strength", "nonnegative"),
                "beta": ("beta", "nonnegative"),
            },
        )

    def _slot_specs(self):
        return [
            ("accum", self._initial_accumulator_value, self._accum_name or self._name),
            ("linear", 0.0, self._linear_name or self._name),
        ]

    def _prepare(self, hyper, step):
        if hyper["beta"]:
            hyper = {**hyper, "l2": hyper["l2"] + hyper["beta"] / (2.0 * hyper["learning_rate"])}
        return hyper, step


class RMSPropOptimizer(Optimizer):
    """``tf.train.RMSPropOptimizer``, slots ``"rms"`` (``ms``, starts at **1** as TF1),
    ``"momentum"`` (``mom``, 0) and, when ``centered``, ``"mg"`` (0)::

        ms <- decay * ms + (1 - decay) * g^2
        mg <- decay * mg + (1 - decay) * g                            (centered)
        mom <- momentum * mom + lr * g / sqrt(ms + eps)   or  / sqrt(ms - mg^2 + eps)
        param <- param - mom
    """

    _update = staticmethod(updates.rmsprop_update)

    def __init__(
        self,
        learning_rate,
        decay=0.9,
        momentum=0.0,
        epsilon=1e-10,
        use_locking=False,
        centered=False,
        name="RMSProp",
    ):
        self._centered = bool(centered)
        super().__init__(
            use_locking,
            name,
            {
                "learning_rate": learning_rate,
                "decay": decay,
                "momentum": momentum,
                "epsilon": epsilon,
            },
            {
                "learning_rate": _LR,
                "decay": ("decay", "unit"),
                "momentum": ("momentum", "nonnegative"),
                "epsilon": ("epsilon", "nonnegative"),
            },
        )

    def _slot_specs(self):
        specs = [("rms", 1.0, self._name)]
        if self._centered:
            specs.append(("mg", 0.0, self._name))
        return specs + [("momentum", 0.0, self._name)]


class ProximalGradientDescentOptimizer(Optimizer):
    """``tf.train.ProximalGradientDescentOptimizer`` (FOBOS with L1/L2). No slots::

    prox = param - lr * g
    param <- sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)
    """

    _update = staticmethod(updates.proximal_gradient_descent_update)

    def __init__(
        self,
        learning_rate,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalGradientDescent",
    ):
        hyper = _rate_l1_l2(learning_rate, l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name, hyper, _L1_L2_RULES)


class ProximalAdagradOptimizer(Optimizer):
    """``tf.train.ProximalAdagradOptimizer``, slot ``"accumulator"`` (``n``, starts at
    ``initial_accumulator_value`` > 0)::

        n <- n + g^2;   a = lr / sqrt(n);   prox = param - a * g
        param <- sign(prox) * max(|prox| - a * l1, 0) / (1 + a * l2)
    """

    _update = staticmethod(updates.proximal_adagrad_update)

    def __init__(
        self,
        learning_rate,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalAdagrad",
    ):
        check_hyperparameter("initial_accumulator_value", initial_accumulator_value, "positive")
        self._initial_accumulator_value = float(initial_accumulator_value)
        hyper = _rate_l1_l2(learning_rate, l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name, hyper, _L1_L2_RULES)

    def _slot_specs(self):
        return [("accumulator", self._initial_accumulator_value, self._name)]


OPTIMIZERS = {
    "Adadelta": AdadeltaOptimizer,
    "Adagrad": AdagradOptimizer,
    "AdagradDA": AdagradDAOptimizer,
    "Adam": AdamOptimizer,
    "Ftrl": FtrlOptimizer,
    "GradientDescent": GradientDescentOptimizer,
    "LazyAdam": LazyAdamOptimizer,
    "Momentum": MomentumOptimizer,
    "ProximalAdagrad": ProximalAdagradOptimizer,
    "ProximalGradientDescent": ProximalGradientDescentOptimizer,
    "RMSProp": RMSPropOptimizer,
    "SGD": GradientDescentOptimizer,
}
"""The optimizers by the names estimators and configs accept (``"Adam"``, ``"Ftrl"``,
``"SGD"``, ...): the one registry of optimizer names."""


def _name_key(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "").removesuffix("optimizer")


def optimizer_class(name: str) -> type:
    """The optimizer class called ``name`` in :data:`OPTIMIZERS`, ignoring case, ``_``,
    ``-`` and an ``Optimizer`` suffix; a ValueError lists the known names.

    >>> optimizer_class("adagrad_optimizer").__name__
    'AdagradOptimizer'
    """
    if isinstance(name, str):
        for known, cls in OPTIMIZERS.items():
            if _name_key(known) == _name_key(name):
                return cls
    raise ValueError(
        f"unknown optimizer {name!r}; use one of {sorted(OPTIMIZERS)} or an optimizer instance"
    )
