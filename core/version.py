"""The installed colonnade's version: what checkpoints and exports record."""

from importlib.metadata import PackageNotFoundError, version


def library_version() -> str:
    """The installed colonnade version, or ``"0.0.0+source"`` for a source tree that was
    never installed.

    >>> library_version() != ""
    True
    """
    try:
        return version("colonnade")
    except PackageNotFoundError:
        return "0.0.0+source"
