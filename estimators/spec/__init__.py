"""The ``model_fn`` contract: ``EstimatorSpec``, ``ModeKeys``, TF's signature constants,
and the streaming metrics a spec's ``eval_metric_ops`` hold. The ground floor of the
estimators: it stands on the hook protocol alone.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
