"""Variables by name, as TF1's ``get_variable`` and ``variable_scope`` with ``AUTO_REUSE``.

A :class:`VariableStore` maps full names (``"tower/dense/kernel"``) to Variables. Inside
``with store.as_default():`` the first ``get_variable(name, shape)`` creates the variable
and every later request of that full name returns it: a ``model_fn`` called once per
batch builds its model on the first call and reuses it after. ``cn.estimators.Estimator``
keeps one store per model and enters it around each ``model_fn`` call.

Outside a store there is nothing to reuse from: eager TF 2 would create a new variable on
each call, which silently never trains. Here ``get_variable`` raises instead and says how
to get a store. The store is explicit (no global collections): it is the model, and a
checkpoint walks it like any other trackable.

>>> import colonnade as cn
>>> store = cn.core.VariableStore(seed=0)
>>> with store.as_default(), cn.core.variable_scope("tower"):
...     w = cn.core.get_variable("w", shape=(2, 3))
>>> with store.as_default(), cn.core.variable_scope("tower"):
...     cn.core.get_variable("w", shape=(2, 3)) is w
True
>>> sorted(store.variables())
['tower/w']
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from . import initializers
from .autodiff import value_of
from .backend import to_host
from .regularizers import add_regularization_loss
from .variables import Variable

_local = threading.local()

LOCAL_VARIABLES = "local_variables"
"""TF 1's ``GraphKeys.LOCAL_VARIABLES``: a variable in this collection is evaluation
state, not model state: no checkpoint holds it, and it restarts from its initial value
as each ``train``/``evaluate``/``predict`` call starts (TF's ``local_init_op``)."""


def _stack(name: str) -> list:
    if not hasattr(_local, name):
        setattr(_local, name, [])
    return getattr(_local, name)


def current_store() -> VariableStore | None:
    """The store of the innermost ``as_default()`` block of this thread, or None."""
    stores = _stack("stores")
    return stores[-1] if stores else None


def _require_store(what: str) -> VariableStore:
    store = current_store()
    if store is None:
        raise RuntimeError(
            f"{what} needs a variable store to create variables in and reuse them from: call "
            "it inside a model_fn run by cn.estimators.Estimator, or inside "
            "`with cn.core.VariableStore().as_default():` (colonnade is eager and has no "
            "global graph whose variables a second call could reuse)"
        )
    return store


def _scope_prefix() -> str:
    return "".join(f"{s}/" for s in _stack("scopes"))


@contextlib.contextmanager
def variable_scope(
    name_or_scope,
    default_name=None,
    values=None,
    initializer=None,
    regularizer=None,
    caching_device=None,
    partitioner=None,
    custom_getter=None,
    reuse=None,
    dtype=None,
    use_resource=None,
    constraint=None,
    auxiliary_name_scope=True,
):
    """Prefix the names of the variables created inside with ``name/`` (TF1's
    ``tf.compat.v1.variable_scope``, its arguments in TF's order). Reuse is always
    ``AUTO_REUSE``: ``reuse`` is accepted for TF compatibility and ignored. ``default_name``
    is used, made unique within the current model call (``default``, ``default_1``, ...),
    when ``name_or_scope`` is None. ``initializer``, ``regularizer`` and ``dtype`` are the
    defaults of the ``get_variable`` calls inside, as in TF (an inner scope's win).
    ``values``, ``caching_device``, ``partitioner`` (one unsharded variable: the same
    values) and ``use_resource`` are TF's graph arguments, accepted and not needed; a
    ``custom_getter`` or ``constraint`` is refused, as it would be silently skipped.

    >>> with variable_scope("a"), variable_scope("b"):
    ...     current_scope_name()
    'a/b'
    """
    for given, what in ((custom_getter, "custom_getter"), (constraint, "constraint")):
        if given is not None:
            raise ValueError(
                f"variable_scope({what}=...) is not supported: apply it to the variables "
                "get_variable returns"
            )
    name = name_or_scope
    if name is None:
        if default_name is None:
            raise ValueError("variable_scope needs name_or_scope or default_name")
        name = unique_name(default_name)[len(_scope_prefix()) :]
    name = str(name).strip("/")
    if not name:
        raise ValueError("variable_scope needs a non-empty name")
    scopes, defaults = _stack("scopes"), _stack("scope_defaults")
    scopes.append(name)
    defaults.append({"initializer": initializer, "regularizer": regularizer, "dtype": dtype})
    try:
        yield name
    finally:
        scopes.pop()
        defaults.pop()


def _scope_default(what: str):
    """The innermost enclosing ``variable_scope``'s ``initializer``/``regularizer``/``dtype``."""
    for scope in reversed(_stack("scope_defaults")):
        if scope[what] is not None:
            return scope[what]
    return None


def current_scope_name() -> str:
    """The full name of the current variable scope ('' at the top)."""
    return "/".join(_stack("scopes"))


def unique_name(base: str) -> str:
    """``base`` under the current scope, made unique within the current model call the
    way TF1 names layers: ``dense``, ``dense_1``, ``dense_2``... The counts restart each
    time a store is entered, so the n-th layer of every call gets the same name."""
    full = _scope_prefix() + base
    store = current_store()
    if store is None:
        return full
    return store.claim_name(full)


class VariableStore:
    """Variables (and variable-owning layers) of one model, by full name.

    ``seed`` seeds the initializers, drawn in creation order. ``global_step`` is what
    ``get_global_step()`` returns inside ``as_default()`` (an estimator sets it).
    ``building`` is set by an estimator while it calls a ``model_fn`` only to create the
    variables: ``minimize`` then creates the optimizer's slots but updates nothing.
    ``before_create(name, shape, dtype)``, when set, is called for each new variable of
    :meth:`get_variable` before its initializer runs, and for each variable a
    feature-column layer of :meth:`layer` will make before the layer is made: a loaded
    export refuses there a variable it does not hold as asked (params sizing a layer or
    an embedding table beyond the stored weights), before the memory for it is taken.
    """

    def __init__(self, seed=None):
        self._variables: dict = {}
        self._local: dict = {}  # name -> (variable, its initial value)
        self._layers: dict = {}
        self.optimizers: dict = {}  # name -> the optimizer whose slots are this model's
        self.global_step = None
        self.building = False
        self.before_create = None
        self._rng = np.random.default_rng(seed)
        self._name_counts: dict = {}

    @property
    def rng(self) -> np.random.Generator:
        """The generator the initializers (in creation order) and dropout draw from."""
        return self._rng

    def claim_name(self, full: str) -> str:
        """``full`` the first time it is claimed in this model call, then ``full_1``,
        ``full_2``...: how TF1 makes layer names unique (see :func:`unique_name`)."""
        count = self._name_counts.get(full, 0)
        self._name_counts[full] = count + 1
        return full if count == 0 else f"{full}_{count}"

    @contextlib.contextmanager
    def as_default(self):
        """Make this the store of ``get_variable``, ``cn.layers`` and the global-step
        functions; layer names restart (``dense``, ``dense_1``...) at each entry."""
        self._name_counts = {}
        stores, scopes, defaults = _stack("stores"), _stack("scopes"), _stack("scope_defaults")
        saved_scopes, saved_defaults = scopes[:], defaults[:]
        scopes.clear()
        defaults.clear()
        stores.append(self)
        try:
            yield self
        finally:
            stores.pop()
            scopes[:] = saved_scopes
            defaults[:] = saved_defaults

    def get_variable(
        self, name, shape=None, dtype=None, initializer=None, trainable=True, local=False
    ):
        """The variable ``name`` (already scoped), created on first request; ``local``:
        one of :data:`LOCAL_VARIABLES` (see :meth:`reset_local_variables`)."""
        if shape is not None:
            shape = tuple(int(d) for d in np.atleast_1d(np.asarray(shape, dtype=np.int64)))
        if local and name in self._variables:
            raise ValueError(
                f"variable {name!r} already exists as a model (global) variable; a local "
                "variable needs a name of its own"
            )
        known = self._variables.get(name)
        if known is None and name in self._local:
            known = self._local[name][0]
        if known is not None:
            if shape is not None and tuple(known.shape) != shape:
                raise ValueError(
                    f"variable {name!r} already exists with shape {tuple(known.shape)}; it "
                    f"was requested again with shape {shape}. Give the new variable "
                    "another name (or variable_scope), or request the existing shape"
                )
            return known
        if name in self._layers:
            raise ValueError(f"{name!r} already names a layer; choose another variable name")
        if local:
            value = self._initial_value(name, shape, dtype, initializer)
            var = Variable(value.copy(), name=name, trainable=trainable, dtype=dtype)
            self._local[name] = (var, value)
            return var
        if self.before_create is not None:
            given = np.shape(getattr(initializer, "value", initializer))
            asked = shape if shape is not None or callable(initializer) else given
            self.before_create(name, asked, np.dtype(dtype or np.float32))
        value = self._initial_value(name, shape, dtype, initializer)
        var = Variable(value, name=name, trainable=trainable, dtype=dtype)
        self._variables[name] = var
        return var

    def _initial_value(self, name, shape, dtype, initializer):
        dtype = np.dtype(dtype or np.float32)
        if initializer is None:
            if shape is None:
                raise ValueError(f"variable {name!r} needs a shape (or an initial value)")
            # TF1's get_variable default: Glorot uniform for floats, zeros otherwise.
            init = initializers.glorot_uniform() if dtype.kind == "f" else initializers.zeros()
            return init(shape, dtype, self._rng)
        if callable(initializer):
            if shape is None:
                raise ValueError(f"variable {name!r} has an initializer function but no shape")
            value = np.asarray(initializer(shape, dtype=dtype, rng=self._rng))
        else:
            value = np.asarray(getattr(initializer, "value", initializer), dtype=dtype)
            if shape is not None and value.shape != shape:
                value = np.broadcast_to(value, shape).copy()
        if shape is not None and value.shape != shape:
            raise ValueError(
                f"the initializer of variable {name!r} gave shape {value.shape}, not {shape}"
            )
        return value.astype(dtype, copy=False)

    def layer(self, name, factory, shapes=None):
        """The variable-owning object ``name`` (a feature-column layer), made by
        ``factory(rng)`` on first request and returned after. ``shapes()``, when given,
        is ``{variable name relative to the layer: shape}`` of what the factory will make:
        each is passed to ``before_create`` (as ``name/variable``) before the layer is
        made, so a loaded export refuses an oversized table before its memory is taken."""
        known = self._layers.get(name)
        if known is None:
            if name in self._variables:
                raise ValueError(f"{name!r} already names a variable; choose another layer name")
            if self.before_create is not None and shapes is not None:
                for relative, shape in shapes().items():
                    self.before_create(f"{name}/{relative}", tuple(shape), np.dtype(np.float32))
            known = self._layers[name] = factory(self._rng)
        return known

    def layers(self) -> dict:
        """The variable-owning layers by full name."""
        return dict(self._layers)

    def variables(self) -> dict:
        """Every variable by full name, the layers' under the layer's name."""
        out = dict(self._variables)
        for lname, layer in self._layers.items():
            for vname, var in layer.checkpoint_children().items():
                out[f"{lname}/{vname}"] = var
        return out

    def local_variables(self) -> dict:
        """The :data:`LOCAL_VARIABLES` by full name (not in :meth:`variables`)."""
        return {name: var for name, (var, _) in self._local.items()}

    def reset_local_variables(self, names=None) -> None:
        """Give every local variable (or those of ``names``) its initial value again
        (TF's ``local_init_op``)."""
        for name, (var, initial) in self._local.items():
            if names is None or name in names:
                var.assign(initial)

    def trainable_variables(self) -> list:
        """What ``minimize`` differentiates by default: the trainable variables, with a
        layer's fused table in place of the columns' variables that are its rows."""
        every = [*self._variables.values(), *self.local_variables().values()]
        out = [v for v in every if v.trainable]
        for layer in self._layers.values():
            out.extend(layer.trainable_variables)
        return out

    def optimizer(self, opt):
        """The optimizer to update this model with, for ``opt``: an optimizer made anew
        in each model call takes over the slots of the one of the same name before it,
        so its accumulators persist (and checkpoints name one optimizer)."""
        known = self.optimizers.get(opt.name)
        if known is not None and known is not opt:
            if type(known) is not type(opt):
                raise ValueError(
                    f"two optimizers named {opt.name!r} ({type(known).__name__} and "
                    f"{type(opt).__name__}) update this model; give them distinct names"
                )
            opt.adopt_state(known)
        self.optimizers[opt.name] = opt
        return opt

    def __len__(self) -> int:
        return len(self._variables) + len(self._local) + len(self._layers) + len(self.optimizers)

    def checkpoint_children(self) -> dict:
        return {**self._variables, **self._layers}


def get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=True,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
) -> Variable:
    """TF1's ``get_variable`` with ``AUTO_REUSE``: the variable ``<scope>/name`` of the
    current store, created on first request (Glorot uniform for floats when there is no
    ``initializer``; an initializer is a value, or ``fn(shape, dtype=, rng=)``) and
    returned after. Requesting it with another shape raises ``ValueError`` naming the
    variable and both shapes; outside a store raises ``RuntimeError`` (see the module).
    ``regularizer(variable)`` joins the call's regularization losses
    (:mod:`.regularizers`). ``collections`` holding :data:`LOCAL_VARIABLES` makes a
    local variable (evaluation state: never checkpointed, reset as each estimator call
    starts); TF's other graph arguments (other collections, ``partitioner``,
    ``caching_device``...) are accepted and not needed.

    >>> import colonnade as cn
    >>> with cn.core.VariableStore().as_default():
    ...     b = cn.core.get_variable("b", shape=[2], initializer=cn.core.initializers.zeros())
    >>> b.name, b.numpy().tolist()
    ('b', [0.0, 0.0])
    """
    store = _require_store("get_variable")
    full = _scope_prefix() + name
    initializer = _scope_default("initializer") if initializer is None else initializer
    regularizer = _scope_default("regularizer") if regularizer is None else regularizer
    dtype = _scope_default("dtype") if dtype is None else dtype
    local = collections is not None and LOCAL_VARIABLES in list(collections)
    variable = store.get_variable(full, shape, dtype, initializer, trainable, local=local)
    if regularizer is not None:
        add_regularization_loss(full, regularizer, variable)
    return variable


def get_local_variable(name, shape=None, dtype=None, initializer=None, **kwargs) -> Variable:
    """TF 1's ``get_local_variable``: :func:`get_variable` in :data:`LOCAL_VARIABLES`,
    not trainable (an accumulator of evaluation state, as TF's metrics keep).

    >>> import colonnade as cn
    >>> store = cn.core.VariableStore()
    >>> with store.as_default():
    ...     n = cn.compat.v1.get_local_variable("n", initializer=0.0)
    ...     _ = n.assign_add(2.0)
    >>> store.reset_local_variables(); float(n.numpy()), sorted(store.variables())
    (0.0, [])
    """
    kwargs.pop("trainable", None)
    collections = [*(kwargs.pop("collections", None) or []), LOCAL_VARIABLES]
    return get_variable(
        name, shape, dtype, initializer, trainable=False, collections=collections, **kwargs
    )


# ------------------------------------------------------------------ global step


_TOP_LEVEL = {"global_step": None}
"""The global step made outside any store: TF's default graph's, one per process."""


def _store_of(graph, caller: str) -> VariableStore | None:
    """The store a TF ``graph`` argument names: ``None`` is the current store (None at top
    level); a :class:`VariableStore` is itself, colonnade's graph (one model's variables)."""
    if graph is None:
        return current_store()
    if isinstance(graph, VariableStore):
        return graph
    raise ValueError(
        f"{caller} takes graph=None (the current variable store) or a VariableStore "
        f"(colonnade's graph), got {type(graph).__name__}"
    )


def get_global_step(graph=None):
    """The global step Variable: the current store's (the estimator's, in a ``model_fn``),
    else the one made at top level by :func:`get_or_create_global_step`; None if none.
    ``graph``: TF's, a :class:`VariableStore` (that store's step) or ``None``. As in TF, a
    store's variable named ``global_step`` is its step when none was created, checked by
    :func:`assert_global_step` (``TypeError`` unless an integer scalar)."""
    store = _store_of(graph, "get_global_step")
    if store is None:
        return _TOP_LEVEL["global_step"]
    if store.global_step is None and "global_step" in store.variables():
        step = store.variables()["global_step"]
        assert_global_step(step)
        return step
    return store.global_step


def _new_global_step() -> Variable:
    return Variable(np.int64(0), name="global_step", trainable=False, dtype=np.int64)


def create_global_step(graph=None):
    """Create the int64 ``global_step`` of the current store (or of ``graph``, a
    :class:`VariableStore`), or at top level outside any store (TF's default graph);
    raises ValueError if it already exists."""
    store = _store_of(graph, "create_global_step")
    if get_global_step(store) is not None:
        raise ValueError("global_step already exists")
    step = _new_global_step()
    if store is None:
        _TOP_LEVEL["global_step"] = step
    else:
        store.global_step = step
    return step


def get_or_create_global_step(graph=None):
    """The global step, created if missing: the current store's, or outside any store a
    top-level one (as TF's default graph's), which later calls and
    :func:`get_global_step` return until :func:`reset_default_graph`. ``graph``: TF's,
    a :class:`VariableStore` or ``None`` (see :func:`get_global_step`).

    >>> import colonnade as cn
    >>> with cn.core.VariableStore().as_default():
    ...     int(cn.train.get_or_create_global_step().numpy())
    0
    """
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def reset_default_graph() -> None:
    """Forget the top-level global step (TF's ``tf.compat.v1.reset_default_graph``): the
    next :func:`get_or_create_global_step` outside a store makes a new one."""
    _TOP_LEVEL["global_step"] = None


def assert_global_step(global_step_tensor) -> None:
    """Raise ``TypeError`` unless ``global_step_tensor`` is an integer scalar Variable."""
    step = global_step_tensor
    if not isinstance(step, Variable):
        raise TypeError(f"global_step must be a Variable, got {type(step).__name__}")
    if np.dtype(step.dtype).kind not in "iu":
        raise TypeError(
            f'global_step must be an integer scalar: "{step.name}" does not have integer '
            f"type: {np.dtype(step.dtype)}"
        )
    if tuple(step.shape) != ():
        raise TypeError(
            f'global_step must be an integer scalar: "{step.name}" is not scalar: '
            f"shape {tuple(step.shape)}"
        )


def global_step(sess, global_step_tensor) -> int:
    """The value of the global step (TF 1's ``tf.train.global_step``): ``sess`` is TF's
    session, accepted and unused (values are read directly); ``global_step_tensor`` is
    the step Variable (or Tensor, or a number).

    >>> import colonnade as cn
    >>> with cn.core.VariableStore().as_default():
    ...     cn.train.global_step(None, cn.train.get_or_create_global_step())
    0
    """
    array = np.asarray(to_host(value_of(global_step_tensor)))
    if array.shape != () or array.dtype.kind not in "iuf":
        raise TypeError(
            f"global_step_tensor must be a scalar number or Variable, got "
            f"{type(global_step_tensor).__name__} of shape {array.shape}"
        )
    return int(array)
