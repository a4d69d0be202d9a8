"""``tf.train.ExponentialMovingAverage``: shadow copies of variables that trail them.

>>> import numpy as np
>>> import colonnade as cn
>>> w = cn.core.Variable(np.array([0.0]), name="w")
>>> ema = cn.train.ExponentialMovingAverage(decay=0.5)
>>> ema.apply([w])             # the shadow starts at w's current value
>>> _ = w.assign([4.0]); ema.apply([w])
>>> ema.average(w).numpy().tolist(), ema.average_name(w)
([2.0], 'w/ExponentialMovingAverage')
"""

from __future__ import annotations

import numpy as np

from .autodiff import value_of
from .backend import get_xp, to_host
from .variable_scope import current_scope_name
from .variables import Variable

__all__ = ["ExponentialMovingAverage"]


def _owned_variable(array, name: str) -> Variable:
    """A non-trainable Variable holding ``array`` itself, on ``array``'s device."""
    out = Variable(0.0, name=name, trainable=False)
    out.value = array
    return out


class ExponentialMovingAverage:
    """Keeps a moving average (a "shadow" Variable) of each variable passed to
    :meth:`apply`; each ``apply`` call moves every shadow toward its variable::

        d      = min(decay, (1 + num_updates) / (10 + num_updates))   (decay if no num_updates)
        shadow <- shadow - (1 - d) * (shadow - variable)

    Shadows start at the variable's value when first seen (TF uses the initial value; in
    eager code the two coincide when ``apply`` runs before training) and are updated in
    place. ``num_updates`` is a number, an integer Variable (typically the global step) or
    a zero-argument callable, read at each ``apply``.

    ``zero_debias=True``: shadows start at zero and report the debiased average of TF's
    ``assign_moving_average(..., zero_debias=True)``: with ``b`` a biased accumulator
    (starting at 0) and ``t`` the number of updates so far, ``b <- b - (1 - d) * (b - var)``
    and ``shadow = b / (1 - d**t)``. (TF applies this only to averages of graph tensors,
    which eager code has no equivalent of; here it applies to every variable.)
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        try:
            decay_value = float(to_host(value_of(decay)))
        except (TypeError, ValueError):
            raise TypeError(f"decay must be a number, got {decay!r}") from None
        if not 0.0 <= decay_value <= 1.0:
            raise ValueError(f"decay must be in [0, 1], got {decay!r}")
        self._decay = decay_value
        self._num_updates = num_updates
        self._zero_debias = bool(zero_debias)
        self._name = name
        self._averages = {}  # id(var) -> (var, shadow)
        self._debias = {}  # id(var) -> (biased accumulator, local step)

    @property
    def name(self) -> str:
        """The name given at construction; the suffix of every shadow's name."""
        return self._name

    def current_decay(self) -> float:
        """The decay the next :meth:`apply` uses: ``min(decay, (1 + n) / (10 + n))`` with
        ``n = num_updates`` when one was given."""
        if self._num_updates is None:
            return self._decay
        n = self._num_updates() if callable(self._num_updates) else self._num_updates
        n = float(to_host(value_of(n)))
        return min(self._decay, (1.0 + n) / (10.0 + n))

    def apply(self, var_list=None) -> None:
        """Create the shadows of ``var_list`` that do not exist yet, then move every shadow
        of ``var_list`` one step toward its variable (see the class docstring).

        ``var_list`` defaults to the variables already averaged. Variables must be
        float32 or float64 (TypeError otherwise).
        """
        if var_list is None:
            var_list = [var for var, _ in self._averages.values()]
            if not var_list:
                raise ValueError(
                    "apply() needs var_list on its first call: there is no graph to collect "
                    "trainable variables from"
                )
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError(
                    f"ExponentialMovingAverage.apply needs Variables, got {type(var).__name__}"
                )
            if var.value.dtype not in (np.float32, np.float64):
                raise TypeError(
                    f"moving averages need float32 or float64 variables; '{var.name}' is "
                    f"{var.value.dtype}"
                )
            if id(var) not in self._averages:
                self._create_shadow(var)
        decay = self.current_decay()
        for var in var_list:
            self._update(var, decay)

    def _create_shadow(self, var) -> None:
        xp = get_xp(var.value)
        scope = current_scope_name()  # TF1 creates the shadows in the enclosing scope
        name = (scope + "/" if scope else "") + self.average_name(var)
        if self._zero_debias:
            shadow = _owned_variable(xp.zeros_like(var.value), name)
            biased = _owned_variable(xp.zeros_like(var.value), name + "/biased")
            local_step = Variable(0, name=name + "/local_step", trainable=False, dtype=np.int64)
            self._debias[id(var)] = (biased, local_step)
        else:
            shadow = _owned_variable(var.value.copy(), name)
        self._averages[id(var)] = (var, shadow)

    def _update(self, var, decay: float) -> None:
        shadow = self._averages[id(var)][1]
        one_minus = 1.0 - decay
        if id(var) not in self._debias:
            shadow.value -= (shadow.value - var.value) * one_minus
            return
        biased, local_step = self._debias[id(var)]
        biased.value -= (biased.value - var.value) * one_minus
        local_step.assign_add(1)
        steps = int(to_host(local_step.value))
        get_xp(shadow.value).divide(biased.value, 1.0 - decay**steps, out=shadow.value)

    def average(self, var):
        """The shadow Variable of ``var``, or None if ``var`` is not averaged."""
        entry = self._averages.get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow: once :meth:`apply` made it, its name (with the
        variable scope ``apply`` ran in as a prefix, as TF1's), else ``var.name + "/" +
        name`` (TF's naming)."""
        shadow = self.average(var)
        return shadow.name if shadow is not None else f"{var.name}/{self._name}"

    def averages(self) -> dict:
        """``{variable: shadow Variable}`` for every averaged variable."""
        return {var: shadow for var, shadow in self._averages.values()}

    def checkpoint_children(self) -> dict:
        """What a :class:`~colonnade.core.Checkpoint` saves of this object: every
        Variable it owns (see :meth:`variables`), by name. Restore after :meth:`apply`
        has made the shadows of the same variables."""
        return {var.name: var for var in self.variables()}

    def variables(self) -> list:
        """Every Variable this object owns: the shadows, then (with ``zero_debias``) each
        shadow's biased accumulator and update count."""
        out = [shadow for _, shadow in self._averages.values()]
        for biased, local_step in self._debias.values():
            out += [biased, local_step]
        return out

    def variables_to_restore(self, moving_avg_variables=None, variables=None) -> dict:
        """``{name in a checkpoint: variable to load it into}`` for evaluating with the
        averages, as TF: each of ``moving_avg_variables`` (default: the averaged
        variables) is restored from its shadow's name; every other variable of
        ``variables`` (the model's variables, standing in for TF's global collection)
        keeps its own name.

        >>> import colonnade as cn
        >>> w, step = cn.core.Variable([1.0], name="w"), cn.core.Variable(0, name="global_step")
        >>> ema = cn.train.ExponentialMovingAverage(0.9)
        >>> ema.apply([w])
        >>> sorted(ema.variables_to_restore(variables=[w, step]))
        ['global_step', 'w/ExponentialMovingAverage']
        """
        if moving_avg_variables is None:
            moving_avg_variables = [var for var, _ in self._averages.values()]
        name_map = {}
        averaged_names = set()
        for var in moving_avg_variables:
            name_map[self.average_name(var)] = var
            averaged_names.add(var.name)
        for var in variables or ():
            if var.name not in averaged_names and var.name not in name_map:
                name_map[var.name] = var
        return name_map

    def __repr__(self) -> str:
        return f"ExponentialMovingAverage(decay={self._decay}, name={self._name!r})"
