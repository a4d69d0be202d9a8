"""The hook protocol (``SessionRunHook`` and the types around it), how a loop runs hooks,
the ``tf.train`` hooks, TensorBoard event files and progress bars.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
