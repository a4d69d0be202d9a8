"""The zero-configuration models ``TabularClassifier`` and ``TabularRegressor``: the columns
inferred, a linear model first, then a cross-fitted wide&deep ensemble folded into one model.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
