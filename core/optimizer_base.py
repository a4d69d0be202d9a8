"""``Optimizer``: what TF1's optimizers share around their update math.

Each optimizer class keeps its slots under TF1's names and calls one pure update function
from :mod:`colonnade.core.optimizer_updates`, where the math lives and is documented. This
base class adds what TF1's ``Optimizer`` adds around that math:

- ``compute_gradients(loss_fn, var_list)`` -> ``[(grad, var), ...]``;
  ``apply_gradients(grads_and_vars, global_step=None)`` (``global_step`` grows by one per
  call); ``minimize(loss_fn, var_list=None, global_step=None)`` does both.
- Dense gradients update the whole variable; :class:`IndexedRows` gradients (row
  gathers) are de-duplicated (repeated rows summed, as TF1), then only those rows of the
  variable and of its slots are gathered, updated and scattered back, in place: the cost
  of a step follows the rows the batch touched, not the table size. ``AdamOptimizer`` is
  the exception TF1 makes: its moments decay on every row (``LazyAdamOptimizer`` does not).
- Hyperparameters (``learning_rate``, ``momentum``, ``beta1``, ...) are numbers,
  zero-argument callables (TF's eager form, ``lambda: 0.1``, read at each update) or
  callables ``step -> number``; the step is ``global_step``'s value when one is passed to
  ``apply_gradients``, else the optimizer's own count of ``apply_gradients`` calls.
  A decay of :mod:`colonnade.core.schedules` built on a step Variable follows it, as
  TF's: ``learning_rate=exponential_decay(0.1, global_step, 1000, 0.96)``.
  ``learning_rate`` is a property that can be set (see :attr:`Optimizer.learning_rate`);
  ``hyperparameters`` reads them all.

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
import dataclasses
import math
import types

import numpy as np

from .autodiff import Tensor, as_tensor, gradients, value_of
from .backend import get_xp, put_rows, take_rows, to_host
from .fused import slot_like, trained_variable
from .indexed_rows import IndexedRows
from .optimizer_checks import (
    check_hyperparameter,
    check_loss,
    check_var_list,
    checked_pairs,
    takes_no_step,
    trainable_variables_of,
)
from .step_trace import traced
from .variable_scope import current_store
from .variables import Variable

__all__ = ["Optimizer", "OptimizerState", "scalar"]

# Adam's TF1 sparse step touches every row; it walks the table in blocks of about this
# many elements so that its temporaries stay cache-sized instead of table-sized.
_ALL_ROWS_BLOCK_ELEMENTS = 1 << 20


def scalar(value) -> float:
    """A number, a 0-d array or a scalar Variable as a Python float (host side)."""
    return float(to_host(value_of(value)))


@dataclasses.dataclass
class OptimizerState:
    """What an optimizer builds up while it trains, apart from its hyperparameters: the
    slots of each variable, optimizer-level Variables (Adam's ``beta1_power``) and the
    count of ``apply_gradients`` calls. One object, so that an optimizer made anew in
    each ``model_fn`` call can take over its predecessor's (:meth:`Optimizer.adopt_state`)."""

    iterations: Variable
    slots: dict = dataclasses.field(default_factory=dict)
    """``id(var) -> (var, {slot name: slot Variable})``."""
    saved_as_views: set = dataclasses.field(default_factory=set)
    """Ids of the variables whose slots checkpoints name through views."""
    non_slot: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def empty(cls, iterations_name: str) -> OptimizerState:
        """No slots, no non-slot Variables, a step count of 0 (named ``iterations_name``)."""
        return cls(Variable(0, name=iterations_name, trainable=False, dtype=np.int64))


class Optimizer:
    """Base class of the TF1-style optimizers: slots, gradient plumbing and validation.

    A subclass names its pure update function (``_update``), its slots in TF1's creation
    order with their initial values (``_slot_specs``) and its hyperparameters; see the
    module docstring for the methods it inherits. ``use_locking`` is accepted for TF
    compatibility and has no effect (eager updates never race).
    """

    _update = None
    _sparse_updates_all_rows = False

    # TF1's gating modes, accepted by compute_gradients/minimize and without effect here
    # (eager gradients are computed whole before any is applied), as in TF's eager mode.
    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name, hyper, rules):
        if not name or not isinstance(name, str):
            raise ValueError(f"Must specify the optimizer name: a non-empty string, got {name!r}")
        self._use_locking = bool(use_locking)
        self._name = name
        self._hyper = dict(hyper)
        self._rules = dict(rules)
        self._no_step = set()  # the keys whose callable takes no step (``lambda: 0.1``)
        for key, raw in self._hyper.items():
            if not callable(raw):
                self._check_hyperparameter(key, raw)
            elif takes_no_step(raw):
                self._no_step.add(key)
        self.training_state = OptimizerState.empty(f"{name}/iterations")

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

    # ----- hyperparameters -----
    @property
    def learning_rate(self):
        """The learning rate as given: a number, or a schedule (a callable ``step ->
        number``, called with the step at each update).

        Setting a number changes the rate from the next update on, as Keras' optimizers
        allow; it is validated as the constructor's argument is. Setting a schedule
        replaces whatever was there. Setting a *number* over a schedule raises
        ``ValueError``: the schedule would silently stop following the step. Assign a
        schedule (``lambda step: 0.01`` for a constant) to replace one on purpose.

        >>> import colonnade as cn
        >>> opt = cn.train.GradientDescentOptimizer(0.1)
        >>> opt.learning_rate = 0.05
        >>> opt.learning_rate
        0.05
        >>> opt.learning_rate = -1.0
        Traceback (most recent call last):
        ...
        ValueError: learning_rate must be >= 0, got -1.0
        >>> decay = lambda step: 0.1 * 0.5**step
        >>> opt.learning_rate = decay
        >>> opt.learning_rate is decay
        True
        >>> opt.learning_rate = 0.01
        Traceback (most recent call last):
        ...
        ValueError: cannot set the learning rate of optimizer 'GradientDescent' to the
        number 0.01: it follows the schedule <function <lambda> at ...>, which a number
        would silently replace; assign a schedule instead (for a constant rate,
        `opt.learning_rate = lambda step: 0.01`)
        """
        return self._hyper["learning_rate"]

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        current = self._hyper["learning_rate"]
        if not callable(value):
            if callable(current):
                raise ValueError(
                    f"cannot set the learning rate of optimizer {self._name!r} to the number "
                    f"{value!r}: it follows the schedule {current!r}, which a number would "
                    "silently replace; assign a schedule instead (for a constant rate, "
                    f"`opt.learning_rate = lambda step: {value!r}`)"
                )
            self._check_hyperparameter("learning_rate", value)
        # a new dict, not an update in place: a fresh_copy() shares the old one
        self._hyper = {**self._hyper, "learning_rate": value}
        self._no_step = self._no_step - {"learning_rate"}
        if callable(value) and takes_no_step(value):
            self._no_step = self._no_step | {"learning_rate"}

    @property
    def hyperparameters(self) -> types.MappingProxyType:
        """The hyperparameters as given (numbers or schedules), read-only, by the names
        the update function of :mod:`colonnade.core.optimizer_updates` reads them
        (``"learning_rate"``, ``"momentum"``, ``"l1"`` for ``l1_regularization_strength``,
        ...): what the optimizer holds when read. Change the learning rate through
        :attr:`learning_rate`.

        >>> import colonnade as cn
        >>> hyper = cn.train.MomentumOptimizer(0.1, momentum=0.9).hyperparameters
        >>> dict(hyper)
        {'learning_rate': 0.1, 'momentum': 0.9, 'use_nesterov': False}
        """
        return types.MappingProxyType(self._hyper)

    def _check_hyperparameter(self, key: str, value) -> None:
        arg_name, rule = self._rules.get(key, (key, None))
        check_hyperparameter(arg_name, value, rule)

    def resolved_hyperparameters(self, step: int) -> dict:
        """The hyperparameters as Python floats for ``step`` (schedules called, and
        their values validated)."""
        out = {}
        for key, raw in self._hyper.items():
            if callable(raw):
                value = float(scalar(raw() if key in self._no_step else raw(step)))
                self._check_hyperparameter(key, value)
            else:
                value = float(scalar(raw))
            out[key] = value
        return out

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
        return self.training_state.iterations

    def get_slot_names(self) -> list:
        """The sorted names of the slots this optimizer keeps per variable."""
        return sorted(spec[0] for spec in self._slot_specs())

    def slot_suffixes(self) -> dict:
        """``{slot name: TF1's suffix of the slot variable}``: TF1 names the slot of ``v``
        ``v/<op name>``, a second slot with the same op name ``v/<op name>_1``.

        >>> from colonnade.core.optimizers import FtrlOptimizer
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
        entry = self.training_state.slots.get(id(var))
        if entry is None or entry[0] is not var:
            return None
        return entry[1].get(name)

    def slot_items(self):
        """Every slot made so far as ``(var, slot_name, slot_variable)``; a slot that has
        views (:func:`colonnade.core.fused.slot_like`) appears as them, as checkpoints
        name them."""
        state = self.training_state
        for var, slots in list(state.slots.values()):
            if id(var) in state.saved_as_views:
                continue
            for slot_name, slot in slots.items():
                yield var, slot_name, slot

    def non_slot_variables(self) -> dict:
        """Optimizer-level state by name: Adam's ``beta1_power``/``beta2_power`` once they
        exist, and ``iterations`` (the int64 count of ``apply_gradients`` calls)."""
        return {**self.training_state.non_slot, "iterations": self.iterations}

    def variables(self) -> list:
        """All slot Variables, then the non-slot Variables TF1 has (Adam's beta powers),
        as TF1's ``variables()``: not the ``iterations`` count, which TF1 does not keep
        (checkpoints still save it, see :meth:`non_slot_variables`)."""
        return [slot for _, _, slot in self.slot_items()] + list(
            self.training_state.non_slot.values()
        )

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
        state = self.training_state
        if id(var) in state.slots:
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
                state.slots.setdefault(id(other), (other, {}))[1][slot_name] = view
            if slot.views:
                state.saved_as_views.add(id(var))
        state.slots[id(var)] = (var, slots)

    def compute_gradients(
        self,
        loss_fn,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        grad_loss=None,
    ) -> list:
        """``[(gradient, variable), ...]`` of ``loss_fn()`` for each of ``var_list``.

        ``loss_fn`` is a zero-argument callable (colonnade is eager: the loss has to be
        recomputed to be differentiated) or a recorded Tensor; a loss that is not a scalar
        is summed, as TF does. A gradient is an array, :class:`IndexedRows` for a table
        read through ``gather``, or None if the loss does not depend on the variable.
        ``grad_loss`` weights the loss as in TF. ``gate_gradients``,
        ``aggregation_method`` and ``colocate_gradients_with_ops`` are accepted and
        ignored, as TF's eager mode does.
        """
        return self._loss_and_gradients(loss_fn, var_list, grad_loss)[1]

    def minimize(
        self,
        loss_fn=None,
        global_step=None,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        name=None,
        grad_loss=None,
        *,
        loss=None,
    ):
        """``compute_gradients`` then ``apply_gradients``; returns the loss value. The
        arguments are TF1's, in TF1's order.

        ``loss_fn`` is a zero-argument callable, or (as TF1 in a ``model_fn``) the loss
        itself: a :class:`Tensor` whose graph was recorded, differentiated as it is.
        ``loss=`` is TF 1's keyword for the same argument (``minimize(loss=loss)``).
        ``var_list`` defaults to the trainable variables of the current
        :class:`~colonnade.core.VariableStore` (inside a ``model_fn``), else (as TF's
        eager mode) to the trainable variables the loss was computed from.

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
        if loss is not None:
            if loss_fn is not None:
                raise TypeError("minimize: give the loss once, as loss_fn or as loss=")
            loss_fn = loss
        if loss_fn is None:
            raise TypeError("minimize() needs the loss: minimize(loss) or minimize(loss=loss)")
        store = current_store()
        if store is not None:
            store.optimizer(self)  # takes over the slots of this model's previous one
            if store.building:
                self.create_slots(store.trainable_variables() if var_list is None else var_list)
                return value_of(loss_fn) if isinstance(loss_fn, Tensor) else None
        loss, grads_and_vars = self._loss_and_gradients(loss_fn, var_list, grad_loss)
        self.apply_gradients(grads_and_vars, global_step=global_step)
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
        clone.training_state = OptimizerState.empty(self.iterations.name)
        return clone

    def adopt_state(self, other: Optimizer) -> None:
        """Take over ``other``'s slots and step counts (same class): what lets a
        ``model_fn`` make its optimizer anew in each call."""
        self.training_state = other.training_state

    @traced("apply_gradients")
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
        pairs = checked_pairs(grads_and_vars)
        step = int(scalar(global_step if global_step is not None else self.iterations))
        hyper = self.resolved_hyperparameters(step)
        self.create_slots([var for _, var in pairs])
        hyper, kernel_step = self._prepare(hyper, step)
        for grad, var in pairs:
            slots = self.training_state.slots[id(var)][1]
            if not isinstance(grad, IndexedRows):
                self._apply_dense(grad, var, slots, kernel_step, hyper)
            elif self._sparse_updates_all_rows:
                self._apply_sparse_all_rows(grad, var, slots, kernel_step, hyper)
            else:
                self._apply_sparse_rows(grad, var, slots, kernel_step, hyper)
        self._finish(hyper)
        self.iterations.assign_add(1)
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
        new, new_slots = self._update(
            take_rows(var.value, rows),
            grad.values,
            {k: take_rows(s.value, rows) for k, s in slots.items()},
            step,
            hyper,
        )
        put_rows(var.value, rows, new)
        for k, value in new_slots.items():
            put_rows(slots[k].value, rows, value)

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
    def _known_variables(self) -> list:
        return [
            var for var, _ in self.training_state.slots.values() if trained_variable(var) is var
        ]

    def _loss_and_gradients(self, loss_fn, var_list, grad_loss):
        check_loss(loss_fn)
        store = current_store()
        if var_list is None and store is not None:
            var_list = store.trainable_variables()
        loss = loss_fn if isinstance(loss_fn, Tensor) else as_tensor(loss_fn())
        if var_list is None:
            var_list = trainable_variables_of(loss) or None
        var_list = check_var_list(var_list, self._known_variables())
        grads = gradients([loss], var_list, None if grad_loss is None else [grad_loss])
        return loss.value, list(zip(grads, var_list))
