"""The networks of feature columns the canned estimators are made of: the linear part, the
DNN tower, their logits; also what an export rebuilds to predict.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
