"""The canned estimators (linear, DNN, wide&deep) of TF 2 and TF 1: one definition, a table
of each version's defaults, and the canned ``model_fn`` (a network and a head); also the
estimators built from config files.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
