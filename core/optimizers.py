"""TF1's optimizers (``tf.train.*Optimizer``) for colonnade Variables, eagerly.

Each class keeps its slots under TF1's names and calls one pure update function from
:mod:`colonnade.core.optimizer_updates`, where the math lives and is documented. The
classes add what TF1's ``Optimizer`` adds around that math:

- ``compute_gradients(loss_fn, var_list)`` -> ``[(grad, var), ...]``;
  ``apply_gradients(grads_and_vars, global_step=None)`` (``global_step`` grows by one per
  call); ``minimize(loss_fn, var_list=None, global_step=None)`` does both.
- Dense gradients update the whole variable; :class:`IndexedRows` gradients (row
  gathers) are de-duplicated (repeated rows summed, as TF1), then only those rows of the
  variable and of its slots are gathered, updated and scattered back, in place: the cost
  of a step follows the rows the batch touched, not the table size. ``AdamOptimizer`` is
  the exception TF1 makes: its moments decay on every row (``LazyAdamOptimizer`` does not).
- Hyperparameters (``learning_rate``, ``momentum``, ``beta1``, ...) are numbers or
  callables ``step -> number``; the step is ``global_step``'s value when one is passed to
  ``apply_gradients``, else the optimizer's own count of ``apply_gradients`` calls.
  A schedule from :mod:`colonnade.core.schedules` plugs in with a lambda:
  ``learning_rate=lambda step: exponential_decay(0.1, step, 1000, 0.96)``.

Checkpoint protocol: ``slot_items()`` yields ``(var, slot_name, slot_variable)``,
``non_slot_variables()`` maps names (``"beta1_power"``, ``"iterations"``, ...) to
Variables, ``create_slots(var_list)`` makes the slots before a first step (so a checkpoint
can be restored into a fresh optimizer) and ``variables()`` lists all of them.

>>> import numpy as np
>>> import colonnade as cn
>>> w = cn.core.Variable(np.array([1.0, -2.0]), name="w")
>>> opt = cn.train.AdagradOptimizer(0.5)
>>> loss = opt.minimize(lambda: cn.core.sum(w * w), var_list=[w])
>>> float(loss), w.numpy().round(4).tolist(), opt.get_slot_names()
(5.0, [0.5061, -1.5016], ['accumulator'])
"""

from __future__ import annotations

import copy
import math

import numpy as np

from . import optimizer_updates as updates
from .autodiff import Tensor, as_tensor, gradients, value_of
from .backend import get_xp, to_device, to_host
from .fused import slot_like, trained_variable
from .indexed_rows import IndexedRows
from .variable_scope import current_store
from .variables import Variable, variable_owning

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

# Adam's TF1 sparse step touches every row; it walks the table in blocks of about this
# many elements so that its temporaries stay cache-sized instead of table-sized.
_ALL_ROWS_BLOCK_ELEMENTS = 1 << 20

# What each validation rule accepts, and how an error message says it.
_RULES = {
    "nonnegative": (lambda x: x >= 0, ">= 0"),
    "positive": (lambda x: x > 0, "> 0"),
    "nonpositive": (lambda x: x <= 0, "<= 0"),
    "unit": (lambda x: 0 <= x <= 1, "in [0, 1]"),
    "unit_open": (lambda x: 0 <= x < 1, "in [0, 1)"),
}


def _check(arg_name: str, value, rule):
    """Raise ValueError naming ``arg_name`` and ``value`` unless ``value`` obeys ``rule``."""
    if rule is None:
        return
    accepts, text = _RULES[rule]
    try:
        ok = accepts(float(value_of(value)))
    except (TypeError, ValueError):
        raise TypeError(
            f"{arg_name} must be a number or a callable step -> number, got {value!r}"
        ) from None
    if not ok:
        raise ValueError(f"{arg_name} must be {text}, got {value!r}")


def _scalar(v) -> float:
    return float(to_host(value_of(v)))


class Optimizer:
    """Base class of the TF1-style optimizers: slots, gradient plumbing and validation.

    A subclass names its pure update function (``_update``), its slots in TF1's creation
    order with their initial values (``_slot_specs``) and its hyperparameters; see the
    module docstring for the methods it inherits. ``use_locking`` is accepted for TF
    compatibility and has no effect (eager updates never race).
    """

    _update = None
    _sparse_updates_all_rows = False

    def __init__(self, use_locking, name, hyper, rules):
        self._use_locking = bool(use_locking)
        self._name = name
        self._hyper = dict(hyper)
        self._rules = dict(rules)
        for key, raw in self._hyper.items():
            if not callable(raw):
                arg_name, rule = self._rules.get(key, (key, None))
                _check(arg_name, raw, rule)
        self._slots = {}  # id(var) -> (var, {slot name: slot Variable})
        self._saved_as_views = set()  # ids of variables whose slots are saved through views
        self._non_slot = {}
        self._iterations = Variable(0, name=f"{name}/iterations", trainable=False, dtype=np.int64)

    # ----- what subclasses describe -----
    def _slot_specs(self) -> list:
        """``[(slot_name, initial_value, op_name), ...]`` in TF1's slot creation order."""
        return []

    def _create_non_slots(self, var_list) -> None:
        """Create optimizer-level state (e.g. Adam's ``beta1_power``) if missing."""

    def _prepare(self, hyper: dict, step: int) -> tuple:
        """Per-call hook: the hyperparameters and integer step the update function gets."""
        return hyper, step

    def _finish(self, hyper: dict) -> None:
        """Per-call hook run after every variable was updated (Adam's beta powers)."""

    # ----- TF1's public surface -----
    @property
    def name(self) -> str:
        """The optimizer's name (TF1's ``name`` argument), prefix of its slot names."""
        return self._name

    def get_name(self) -> str:
        """The optimizer's name, as TF1's ``Optimizer.get_name()``."""
        return self._name

    @property
    def iterations(self) -> Variable:
        """The int64 Variable counting ``apply_gradients`` calls."""
        return self._iterations

    def get_slot_names(self) -> list:
        """The sorted names of the slots this optimizer keeps per variable."""
        return sorted(spec[0] for spec in self._slot_specs())

    def slot_suffixes(self) -> dict:
        """``{slot name: TF1's suffix of the slot variable}``: TF1 names the slot of ``v``
        ``v/<op name>``, a second slot with the same op name ``v/<op name>_1``.

        >>> FtrlOptimizer(0.1).slot_suffixes()
        {'accum': 'Ftrl', 'linear': 'Ftrl_1'}
        """
        out, counts = {}, {}
        for slot_name, _, op_name in self._slot_specs():
            count = counts.get(op_name, 0)
            counts[op_name] = count + 1
            out[slot_name] = op_name + (f"_{count}" if count else "")
        return out

    def get_slot(self, var, name):
        """The slot Variable ``name`` of ``var``, or None if there is none (yet)."""
        entry = self._slots.get(id(var))
        if entry is None or entry[0] is not var:
            return None
        return entry[1].get(name)

    def slot_items(self):
        """Every slot made so far as ``(var, slot_name, slot_variable)``; a slot that has
        views (:func:`colonnade.core.fused.slot_like`) appears as them, as checkpoints
        name them."""
        for var, slots in list(self._slots.values()):
            if id(var) in self._saved_as_views:
                continue
            for slot_name, slot in slots.items():
                yield var, slot_name, slot

    def non_slot_variables(self) -> dict:
        """Optimizer-level state by name: Adam's ``beta1_power``/``beta2_power`` once they
        exist, and ``iterations`` (the int64 count of ``apply_gradients`` calls)."""
        return {**self._non_slot, "iterations": self._iterations}

    def variables(self) -> list:
        """All slot Variables, then the non-slot Variables, as TF1's ``variables()``."""
        return [slot for _, _, slot in self.slot_items()] + list(self.non_slot_variables().values())

    def create_slots(self, var_list) -> None:
        """Make (with their initial values) the slots of each variable that has none yet,
        and any optimizer-level state: what a first ``apply_gradients`` would create."""
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError(f"create_slots needs Variables, got {type(var).__name__}")
            self._create_slots_of(trained_variable(var))
        self._create_non_slots(var_list)

    def _create_slots_of(self, var) -> None:
        if id(var) in self._slots:
            return
        xp = get_xp(var.value)
        slots, suffixes = {}, self.slot_suffixes()
        for slot_name, initial, _ in self._slot_specs():
            suffix = "/" + suffixes[slot_name]
            if initial == 0:
                array = xp.zeros(var.shape, dtype=var.value.dtype)
            else:
                array = xp.full(var.shape, initial, dtype=var.value.dtype)
            slot = slot_like(var, array, suffix)
            slots[slot_name] = slot.variable
            for other, view in slot.views:  # get_slot(other, ...) and checkpoints see these
                self._slots.setdefault(id(other), (other, {}))[1][slot_name] = view
            if slot.views:
                self._saved_as_views.add(id(var))
        self._slots[id(var)] = (var, slots)

    def compute_gradients(self, loss_fn, var_list=None, grad_loss=None) -> list:
        """``[(gradient, variable), ...]`` of ``loss_fn()`` for each of ``var_list``.

        ``loss_fn`` is a zero-argument callable (colonnade is eager: the loss has to be
        recomputed to be differentiated). A gradient is an array, :class:`IndexedRows`
        for a table read through ``gather``, or None if the loss does not depend on the
        variable. ``grad_loss`` weights the loss as in TF.
        """
        return self._loss_and_gradients(loss_fn, var_list, grad_loss)[1]

    def minimize(self, loss_fn, var_list=None, global_step=None, grad_loss=None, name=None):
        """``compute_gradients`` then ``apply_gradients``; returns the loss value.

        ``loss_fn`` is a zero-argument callable, or (as TF1 in a ``model_fn``) the loss
        itself: a scalar :class:`Tensor` whose graph was recorded, differentiated as it
        is. ``var_list`` defaults to the trainable variables of the current
        :class:`~colonnade.core.VariableStore` (inside a ``model_fn``), else to the
        variables this optimizer already has slots for; without either it is required.

        Inside a store, an optimizer made anew in each ``model_fn`` call takes over the
        slots of the previous one of the same name, and while the store is ``building``
        only the slots are made: nothing is updated.

        >>> import colonnade as cn
        >>> w = cn.core.Variable([1.0, 2.0])
        >>> loss = cn.core.sum(w * w)
        >>> float(cn.train.GradientDescentOptimizer(0.25).minimize(loss, var_list=[w]))
        5.0
        >>> w.numpy().tolist()
        [0.5, 1.0]
        """
        store = current_store()
        opt = self if store is None else store.optimizer(self)
        if store is not None and store.building:
            var_list = store.trainable_variables() if var_list is None else var_list
            opt.create_slots(var_list)
            return value_of(loss_fn) if isinstance(loss_fn, Tensor) else None
        loss, grads_and_vars = opt._loss_and_gradients(loss_fn, var_list, grad_loss)
        opt.apply_gradients(grads_and_vars, global_step=global_step)
        return loss

    def fresh_copy(self) -> Optimizer:
        """A copy with the same class and hyperparameters and no state: no slots, no
        non-slot state, a step count of 0. What updates the same variables elsewhere (a
        parameter server builds its own slots in one) with the same code; copying the
        object keeps every constructor argument, whatever the class.

        >>> import colonnade as cn
        >>> w = cn.core.Variable([1.0])
        >>> opt = cn.train.AdagradOptimizer(0.5)
        >>> _ = opt.minimize(lambda: cn.core.sum(w * w), var_list=[w])
        >>> fresh = opt.fresh_copy()
        >>> type(fresh).__name__, fresh.get_slot(w, "accumulator"), int(fresh.iterations.numpy())
        ('AdagradOptimizer', None, 0)
        >>> _ = fresh.minimize(lambda: cn.core.sum(w * w), var_list=[w])  # its own state
        >>> int(fresh.iterations.numpy()), int(opt.iterations.numpy())
        (1, 1)
        """
        clone = copy.copy(self)
        clone._slots, clone._saved_as_views, clone._non_slot = {}, set(), {}
        clone._iterations = Variable(0, name=self._iterations.name, trainable=False, dtype=np.int64)
        return clone

    def _adopt_state(self, other) -> None:
        """Take over ``other``'s slots and step counts (same class): what lets a
        ``model_fn`` make its optimizer anew in each call."""
        self._slots = other._slots
        self._saved_as_views = other._saved_as_views
        self._non_slot = other._non_slot
        self._iterations = other._iterations

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> None:
        """Update each variable from its gradient; pairs whose gradient is None are
        skipped. ``global_step`` (an integer Variable), when given, grows by one.

        Raises ValueError if no pair has a gradient (listing the variables) or if a
        gradient's shape is not its variable's.
        """
        if global_step is not None and not isinstance(global_step, Variable):
            raise TypeError(
                "global_step must be a Variable, e.g. "
                f"Variable(0, dtype=np.int64, trainable=False); got {type(global_step).__name__}"
            )
        pairs = self._checked_pairs(grads_and_vars)
        step = int(_scalar(global_step if global_step is not None else self._iterations))
        hyper = self._resolve(step)
        self.create_slots([var for _, var in pairs])
        hyper, kernel_step = self._prepare(hyper, step)
        for grad, var in pairs:
            slots = self._slots[id(var)][1]
            if not isinstance(grad, IndexedRows):
                self._apply_dense(grad, var, slots, kernel_step, hyper)
            elif self._sparse_updates_all_rows:
                self._apply_sparse_all_rows(grad, var, slots, kernel_step, hyper)
            else:
                self._apply_sparse_rows(grad, var, slots, kernel_step, hyper)
        self._finish(hyper)
        self._iterations.assign_add(1)
        if global_step is not None:
            global_step.assign_add(1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._name!r})"

    # ----- the three update paths -----
    def _apply_dense(self, grad, var, slots, step, hyper) -> None:
        xp = get_xp(var.value)
        new, new_slots = self._update(
            var.value, grad, {k: s.value for k, s in slots.items()}, step, hyper
        )
        xp.copyto(var.value, new, casting="same_kind")
        for k, value in new_slots.items():
            xp.copyto(slots[k].value, value, casting="same_kind")

    def _apply_sparse_rows(self, grad, var, slots, step, hyper) -> None:
        """Gather the touched rows, update them with the pure function, scatter back."""
        grad = grad.deduplicate()
        rows = grad.indices
        xp = get_xp(var.value)
        take = xp.take  # whole rows of a 2-D table: cheaper than general fancy indexing
        new, new_slots = self._update(
            take(var.value, rows, axis=0),
            grad.values,
            {k: take(s.value, rows, axis=0) for k, s in slots.items()},
            step,
            hyper,
        )
        var.value[rows] = new
        for k, value in new_slots.items():
            slots[k].value[rows] = value

    def _apply_sparse_all_rows(self, grad, var, slots, step, hyper) -> None:
        """TF1's Adam on a sparse gradient: the same update as for the dense gradient
        (untouched rows see g = 0), done block by block so no table-sized temporary."""
        xp = get_xp(var.value)
        grad = grad.deduplicate()
        rows_host = to_host(grad.indices)
        n_rows = var.shape[0]
        block = max(1, _ALL_ROWS_BLOCK_ELEMENTS // max(1, math.prod(var.shape[1:])))
        for start in range(0, n_rows, block):
            stop = min(n_rows, start + block)
            lo, hi = np.searchsorted(rows_host, [start, stop])
            g = xp.zeros((stop - start,) + tuple(var.shape[1:]), dtype=var.value.dtype)
            if hi > lo:
                g[grad.indices[lo:hi] - start] = grad.values[lo:hi]
            block_slots = {k: s.value[start:stop] for k, s in slots.items()}
            new, new_slots = self._update(var.value[start:stop], g, block_slots, step, hyper)
            var.value[start:stop] = new
            for k, value in new_slots.items():
                block_slots[k][...] = value

    # ----- plumbing -----
    def _resolve(self, step: int) -> dict:
        """The hyperparameters as Python floats for this step (callables called)."""
        out = {}
        for key, raw in self._hyper.items():
            if callable(raw):
                value = float(_scalar(raw(step)))
                arg_name, rule = self._rules.get(key, (key, None))
                _check(arg_name, value, rule)
            else:
                value = float(_scalar(raw))
            out[key] = value
        return out

    def _known_variables(self) -> list:
        return [var for var, _ in self._slots.values() if trained_variable(var) is var]

    def _loss_and_gradients(self, loss_fn, var_list, grad_loss):
        if not callable(loss_fn) and not isinstance(loss_fn, Tensor):
            raise TypeError(
                "loss must be a zero-argument callable that computes the loss, or a "
                f"recorded scalar Tensor; got {type(loss_fn).__name__}"
            )
        if isinstance(loss_fn, Tensor):
            _check_recorded_loss(loss_fn)
        store = current_store()
        if var_list is None and store is not None:
            var_list = store.trainable_variables()
        if isinstance(var_list, Variable):
            raise TypeError(
                f"var_list must be a list of Variables, got the Variable '{var_list.name}'; "
                "note that TF's positional order is minimize(loss, global_step, var_list): "
                "pass global_step=... and var_list=[...] by keyword"
            )
        if var_list is None:
            var_list = self._known_variables()
            if not var_list:
                raise ValueError(
                    "var_list is required: there is no graph to collect trainable variables "
                    "from; pass var_list=[...] (later calls default to the variables this "
                    "optimizer has already updated)"
                )
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError(f"var_list must hold Variables, got {type(var).__name__}")
        loss = loss_fn if isinstance(loss_fn, Tensor) else as_tensor(loss_fn())
        grads = gradients([loss], var_list, None if grad_loss is None else [grad_loss])
        return loss.value, list(zip(grads, var_list))

    def _checked_pairs(self, grads_and_vars) -> list:
        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError("apply_gradients got no (gradient, variable) pairs")
        for pair in pairs:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(f"apply_gradients needs (gradient, variable) pairs, got {pair!r}")
            if not isinstance(pair[1], Variable):
                raise TypeError(
                    f"apply_gradients needs (gradient, Variable) pairs, got a "
                    f"{type(pair[1]).__name__} in place of the Variable"
                )
        with_grad = [(g, v) for g, v in pairs if g is not None]
        if not with_grad:
            names = [v.name for _, v in pairs]
            raise ValueError(
                f"No gradients provided for any variable: {names}; check that the loss "
                "depends on them"
            )
        seen = set()
        out = []
        for grad, var in with_grad:
            if id(var) in seen:
                raise ValueError(f"variable '{var.name}' appears twice in grads_and_vars")
            seen.add(id(var))
            out.append((self._as_gradient(grad, var), var))
        return out

    @staticmethod
    def _as_gradient(grad, var):
        """``grad`` on ``var``'s device and dtype, after checking its shape."""
        dtype = var.value.dtype
        if np.dtype(dtype).kind != "f":
            raise TypeError(f"optimizers update floating variables; '{var.name}' is {dtype}")
        xp = get_xp(var.value)
        if isinstance(grad, IndexedRows):
            if tuple(grad.dense_shape) != tuple(var.shape):
                raise ValueError(
                    f"gradient for variable '{var.name}' has shape {tuple(grad.dense_shape)} "
                    f"but the variable has shape {tuple(var.shape)}"
                )
            values = to_device(grad.values, xp).astype(dtype, copy=False)
            return IndexedRows(to_device(grad.indices, xp), values, grad.dense_shape, grad.groups)
        grad = to_device(value_of(grad), xp)
        if tuple(grad.shape) != tuple(var.shape):
            raise ValueError(
                f"gradient for variable '{var.name}' has shape {tuple(grad.shape)} "
                f"but the variable has shape {tuple(var.shape)}"
            )
        return grad.astype(dtype, copy=False)


def _check_recorded_loss(loss) -> None:
    if loss.shape != ():
        raise ValueError(f"minimize needs a scalar loss, got a Tensor of shape {loss.shape}")
    if not loss.parents:
        raise ValueError(
            "minimize got a loss Tensor with no recorded graph (a constant, or computed "
            "under no_grad): compute it from the variables with recording on, or pass a "
            "zero-argument function that computes it"
        )


_LR = ("learning_rate", "nonnegative")


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
        _check("initial_accumulator_value", initial_accumulator_value, "positive")
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
        _check(
            "initial_gradient_squared_accumulator_value",
            initial_gradient_squared_accumulator_value,
            "positive",
        )
        if global_step is None:
            raise ValueError("AdagradDAOptimizer needs global_step, an integer Variable")
        self._global_step = global_step
        self._initial_gsa = float(initial_gradient_squared_accumulator_value)
        super().__init__(
            use_locking,
            name,
            {
                "learning_rate": learning_rate,
                "l1": l1_regularization_strength,
                "l2": l2_regularization_strength,
            },
            {
                "learning_rate": _LR,
                "l1": ("l1_regularization_strength", "nonnegative"),
                "l2": ("l2_regularization_strength", "nonnegative"),
            },
        )

    def _slot_specs(self):
        return [
            ("gradient_accumulator", 0.0, self._name),
            ("gradient_squared_accumulator", self._initial_gsa, self._name),
        ]

    def _prepare(self, hyper, step):
        return hyper, int(_scalar(self._global_step)) + 1


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


def _adam_create_powers(opt, var_list) -> None:
    """TF1's ``beta1_power``/``beta2_power`` (start at beta1/beta2, dtype of the first
    variable); shared by Adam and LazyAdam."""
    if "beta1_power" in opt._non_slot or not var_list:
        return
    first = var_list[0]
    xp, dtype = get_xp(first.value), first.value.dtype
    hyper = opt._resolve(int(_scalar(opt._iterations)))
    for key in ("beta1", "beta2"):
        power = variable_owning(xp.asarray(hyper[key], dtype=dtype), f"{key}_power")
        opt._non_slot[f"{key}_power"] = power


def _adam_prepare(opt, hyper, step):
    hyper = dict(hyper)
    hyper["beta1_power"] = _scalar(opt._non_slot["beta1_power"])
    hyper["beta2_power"] = _scalar(opt._non_slot["beta2_power"])
    return hyper, step


def _adam_finish(opt, hyper) -> None:
    for key in ("beta1", "beta2"):
        power = opt._non_slot[f"{key}_power"]
        power.value = power.value * hyper[key]


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
        _adam_create_powers(self, var_list)

    def _prepare(self, hyper, step):
        return _adam_prepare(self, hyper, step)

    def _finish(self, hyper):
        _adam_finish(self, hyper)

    def set_powers_from_step(self) -> None:
        """Set ``beta1_power`` and ``beta2_power`` to ``beta^(iterations + 1)``, what they
        hold after ``iterations`` updates: for a checkpoint that keeps only the step count.
        Keras' Adam (TF 2's canned estimators) keeps ``iter`` and computes the powers from
        it with the same update (``ApplyAdam``), so its state is ``m``, ``v`` and ``iter``.

        >>> import numpy as np
        >>> opt = AdamOptimizer(beta1=0.5, beta2=0.25)
        >>> opt.create_slots([Variable(np.zeros(2, np.float32))])
        >>> _ = opt.iterations.assign(2)
        >>> opt.set_powers_from_step()
        >>> [float(v.numpy()) for k, v in sorted(opt.non_slot_variables().items()) if "power" in k]
        [0.125, 0.015625]
        """
        step = int(_scalar(self._iterations))
        hyper = self._resolve(step)
        for key in ("beta1", "beta2"):
            power = self._non_slot[f"{key}_power"]
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
        _check("initial_accumulator_value", initial_accumulator_value, "nonnegative")
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


_L1_L2_RULES = {
    "learning_rate": _LR,
    "l1": ("l1_regularization_strength", "nonnegative"),
    "l2": ("l2_regularization_strength", "nonnegative"),
}


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
        super().__init__(
            use_locking,
            name,
            {
                "learning_rate": learning_rate,
                "l1": l1_regularization_strength,
                "l2": l2_regularization_strength,
            },
            _L1_L2_RULES,
        )


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
        _check("initial_accumulator_value", initial_accumulator_value, "positive")
        self._initial_accumulator_value = float(initial_accumulator_value)
        super().__init__(
            use_locking,
            name,
            {
                "learning_rate": learning_rate,
                "l1": l1_regularization_strength,
                "l2": l2_regularization_strength,
            },
            _L1_L2_RULES,
        )

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
