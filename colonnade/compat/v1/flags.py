"""``cn.compat.v1.flags`` (also ``cn.compat.v1.app.flags``): TF 1's command-line flags, which
were absl-py's: ``DEFINE_string``/``integer``/``float``/``boolean``/``list``/``enum``, read
as ``FLAGS.name`` once ``FLAGS(argv)`` (or ``cn.compat.v1.app.run``) has parsed the
command line, with absl's spellings (``--name=value``, ``--name value``, ``--flag`` and
``--noflag`` for booleans, ``--`` ending the flags) and absl's errors.

>>> values = FlagValues()
>>> DEFINE_integer("steps", 100, "training steps", flag_values=values)
>>> DEFINE_boolean("shuffle", True, "shuffle the data", flag_values=values)
>>> values(["train.py", "--steps=5", "--noshuffle", "extra"])
['train.py', 'extra']
>>> values.steps, values.shuffle
(5, False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_string",
    "DuplicateFlagError",
    "Error",
    "FLAGS",
    "FlagValues",
    "IllegalFlagValueError",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
]


class Error(Exception):
    """absl's ``flags.Error``: the base of the flag errors."""


class DuplicateFlagError(Error):
    """A flag name defined twice."""


class IllegalFlagValueError(Error):
    """A flag given a value its type refuses."""


class UnrecognizedFlagError(Error):
    """A command line names a flag nobody defined."""


class UnparsedFlagAccessError(Error, AttributeError):
    """A flag read before the command line was parsed."""


_TRUE, _FALSE = ("true", "t", "1", "yes", "y"), ("false", "f", "0", "no", "n")


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false, 1/0, yes/no)")


@dataclass
class _Flag:
    name: str
    default: Any
    help: str
    parse: Callable[[str], Any]
    boolean: bool = False
    value: Any = None


class FlagValues:
    """A registry of flags and, once parsed, their values (absl's ``FlagValues``)."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)

    def define(self, flag: _Flag) -> None:
        """Register ``flag``; its default is its value until a command line sets it."""
        if flag.name in self._flags:
            raise DuplicateFlagError(f"the flag {flag.name!r} is defined twice")
        flag.value = flag.default
        self._flags[flag.name] = flag

    def __call__(self, argv) -> list:
        """Parse ``argv`` (``argv[0]`` is the program) and return ``argv[0]`` and the
        arguments that are not flags."""
        argv = list(argv)
        rest, i = argv[:1], 1
        while i < len(argv):
            arg = argv[i]
            i += 1
            if arg == "--":
                rest.extend(argv[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            name, has_value, text = arg.lstrip("-").partition("=")
            flag = self._flags.get(name)
            if flag is None and name.startswith("no") and not has_value:
                negated = self._flags.get(name[2:])
                if negated is not None and negated.boolean:
                    negated.value = False
                    continue
            if flag is None:
                raise UnrecognizedFlagError(f"unknown command line flag {name!r}")
            if not has_value:
                if flag.boolean:
                    flag.value = True
                    continue
                if i >= len(argv):
                    raise IllegalFlagValueError(f"flag --{name} needs a value")
                text, i = argv[i], i + 1
            try:
                flag.value = flag.parse(text)
            except ValueError as e:
                raise IllegalFlagValueError(f"flag --{name}={text}: {e}") from e
        object.__setattr__(self, "_parsed", True)
        return rest

    def is_parsed(self) -> bool:
        return self._parsed

    def mark_as_parsed(self) -> None:
        """Take the defaults as parsed (absl's way for notebooks and tests)."""
        object.__setattr__(self, "_parsed", True)

    def __getattr__(self, name):
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(name)
        if not self._parsed:
            raise UnparsedFlagAccessError(
                f"trying to access flag --{name} before flags were parsed: call "
                "cn.compat.v1.app.run(main), or FLAGS(sys.argv) first"
            )
        return flag.value

    def __setattr__(self, name, value):
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(f"no flag named {name!r} is defined")
        flag.value = value

    def __contains__(self, name) -> bool:
        return name in self._flags

    def flag_values_dict(self) -> dict:
        return {name: flag.value for name, flag in self._flags.items()}


FLAGS = FlagValues()


def _number(kind, lower_bound, upper_bound):
    def parse(text):
        value = kind(text)
        if lower_bound is not None and value < lower_bound:
            raise ValueError(f"{value} is below the lower bound {lower_bound}")
        if upper_bound is not None and value > upper_bound:
            raise ValueError(f"{value} is above the upper bound {upper_bound}")
        return value

    return parse


def DEFINE_string(name, default, help, flag_values=FLAGS, **args):  # noqa: N802, A002
    """A flag whose value is the text given."""
    flag_values.define(_Flag(name, default, help, str))


def DEFINE_integer(  # noqa: N802
    name,
    default,
    help,
    lower_bound=None,
    upper_bound=None,
    flag_values=FLAGS,
    **args,  # noqa: A002
):
    """A flag whose value is an integer, within the bounds when given."""
    flag_values.define(_Flag(name, default, help, _number(int, lower_bound, upper_bound)))


def DEFINE_float(  # noqa: N802
    name,
    default,
    help,
    lower_bound=None,
    upper_bound=None,
    flag_values=FLAGS,
    **args,  # noqa: A002
):
    """A flag whose value is a float, within the bounds when given."""
    flag_values.define(_Flag(name, default, help, _number(float, lower_bound, upper_bound)))


def DEFINE_boolean(name, default, help, flag_values=FLAGS, **args):  # noqa: N802, A002
    """A flag set by ``--name`` (or ``--name=true``) and cleared by ``--noname``."""
    flag_values.define(_Flag(name, default, help, _boolean, boolean=True))


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name, default, help, flag_values=FLAGS, **args):  # noqa: N802, A002
    """A flag whose value is the list of its comma-separated parts."""
    if isinstance(default, str):
        default = [p for p in default.split(",") if p]
    flag_values.define(_Flag(name, default, help, lambda t: [p for p in t.split(",") if p]))


def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS, **args):  # noqa: N802, A002
    """A flag whose value is one of ``enum_values``."""
    allowed = list(enum_values)

    def parse(text):
        if text not in allowed:
            raise ValueError(f"must be one of {allowed}")
        return text

    flag_values.define(_Flag(name, default, help, parse))
