"""``Scaffold``: TF 1's ``tf.compat.v1.train.Scaffold``, which an ``EstimatorSpec``
carries to say how the training session starts, with its eager meaning.

TF runs ``init_op`` and then ``init_fn(scaffold, session)`` when a training session
starts from scratch (no checkpoint in ``model_dir`` to restore), the idiom TF 1 programs
use to warm-start from another model (``saver.restore(session, path)``) or to load
pretrained embeddings. Here the estimator calls ``init_fn`` at the same moment: once
per ``train`` call that starts at global step 0, after the ``model_fn`` made its
variables (and any ``warm_start_from`` gave them values), before the first step. Its
``session`` is an :class:`EagerSession`: ``session.run(x)`` gives ``x``'s value.

The graph operations have nothing left to run, as every op ran when made: ``init_op``
and ``local_init_op`` are taken when ``None`` (what ``cn.compat.v1.group``,
``no_op`` and ``tables_initializer`` give), ``ready_op``/``ready_for_local_init_op``
are accepted (variables are always ready), and ``summary_op`` is ``None`` or
``summary.merge_all()``'s. A ``saver`` is refused: the estimator saves every variable
itself, as ``RunConfig(keep_checkpoint_max=..., save_checkpoints_steps=...)`` says.

>>> import colonnade as cn
>>> calls = []
>>> scaffold = cn.train.Scaffold(init_fn=lambda scaffold, session: calls.append(session))
>>> scaffold.init_fn is not None, scaffold.finalize() is scaffold
(True, True)
"""

from __future__ import annotations

from ...core import get_global_step, nest
from ...core.autodiff import value_of
from ..hooks.runner import SessionRunHook

__all__ = ["EagerSession", "Scaffold", "ScaffoldInitHook"]

_FIELDS = (
    "init_op",
    "init_feed_dict",
    "init_fn",
    "ready_op",
    "ready_for_local_init_op",
    "local_init_op",
    "summary_op",
    "saver",
)


class EagerSession:
    """The ``session`` an ``init_fn`` gets: ``run(fetches)`` gives the value of each
    fetch (a nested list, tuple or dict of them), as every op already ran."""

    graph = None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """The values of ``fetches`` (``None`` for an op such as ``assign``'s ``None``);
        a non-empty ``feed_dict`` is refused, there being no placeholders to feed."""
        if feed_dict:
            raise ValueError(
                "session.run(feed_dict=...) in a Scaffold init_fn: there are no placeholders "
                "to feed eagerly; assign the values directly (variable.assign(value))"
            )
        return nest.map_structure(lambda x: None if x is None else value_of(x), fetches)


class Scaffold:
    """How a training session starts (TF 1's ``tf.compat.v1.train.Scaffold``, in its
    argument order): see the module. ``copy_from_scaffold`` starts from another
    scaffold's fields, the ones given here overriding them."""

    def __init__(
        self,
        init_op=None,
        init_feed_dict=None,
        init_fn=None,
        ready_op=None,
        ready_for_local_init_op=None,
        local_init_op=None,
        summary_op=None,
        saver=None,
        copy_from_scaffold=None,
        local_init_feed_dict=None,
    ):
        given = dict(zip(_FIELDS, (init_op, init_feed_dict, init_fn, ready_op)))
        given.update(
            ready_for_local_init_op=ready_for_local_init_op,
            local_init_op=local_init_op,
            summary_op=summary_op,
            saver=saver,
        )
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError(
                    "copy_from_scaffold is not a Scaffold instance, got "
                    f"{type(copy_from_scaffold).__name__}"
                )
            given = {
                k: v if v is not None else getattr(copy_from_scaffold, k) for k, v in given.items()
            }
        for name in ("init_op", "local_init_op"):
            if given[name] is not None:
                raise ValueError(
                    f"Scaffold({name}={given[name]!r:.60}): eager ops ran when made, so there "
                    "is no graph op to run at the session's start; run it in the model_fn, or "
                    "put it in init_fn(scaffold, session)"
                )
        feeds = (
            ("init_feed_dict", given["init_feed_dict"]),
            ("local_init_feed_dict", local_init_feed_dict),
        )
        for name, feed in feeds:
            if feed:
                raise ValueError(
                    f"Scaffold({name}=...): there are no placeholders to feed eagerly; assign "
                    "the values in init_fn(scaffold, session) instead"
                )
        if given["saver"] is not None:
            raise ValueError(
                "Scaffold(saver=...): the estimator saves and restores every variable of the "
                "model itself; leave saver out and set RunConfig(keep_checkpoint_max=..., "
                "save_checkpoints_steps=...), or use a cn.train.Saver of your own in init_fn"
            )
        if given["init_fn"] is not None and not callable(given["init_fn"]):
            raise TypeError(f"Scaffold init_fn must be callable, got {given['init_fn']!r:.60}")
        for name, value in given.items():
            setattr(self, name, value)
        self.local_init_feed_dict = None

    def finalize(self):
        """TF's graph finalization: nothing to build; the scaffold itself."""
        return self

    @staticmethod
    def default_local_init_op():
        """TF's default ``local_init_op`` (local variables and tables): nothing to run."""
        return None

    def run_init_fn(self, session=None) -> None:
        """Call ``init_fn(self, session)`` (an :class:`EagerSession` by default)."""
        if self.init_fn is not None:
            self.init_fn(self, session if session is not None else EagerSession())


class ScaffoldInitHook(SessionRunHook):
    """Calls the scaffold's ``init_fn`` when the session is made, if the training run
    starts from scratch (global step 0: no checkpoint was restored), as TF's session
    manager does."""

    def __init__(self, scaffold: Scaffold):
        self.scaffold, self.fresh = scaffold, False

    def begin(self) -> None:
        step = get_global_step()
        self.fresh = step is None or int(value_of(step)) == 0

    def after_create_session(self, session, coord) -> None:
        if self.fresh:
            self.scaffold.run_init_fn()
