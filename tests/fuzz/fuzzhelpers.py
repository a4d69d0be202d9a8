"""Shared pieces of the hostile-input fuzzers: byte mutations of a valid seed, a time bound
and the hypothesis settings CI runs them with.

Each fuzzer starts from a file colonnade (or TensorFlow) wrote, applies a few mutations
(truncate, flip a byte, plant a huge length or varint, repeat or drop a block) and asserts
that reading it either works or raises the reader's documented error, within a time bound:
never an IndexError, MemoryError, OverflowError or a hang. ``COLONNADE_FUZZ_EXAMPLES``
raises the number of examples for a longer local run (CI keeps the default, a few seconds
a fuzzer).
"""

import contextlib
import os
import signal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("COLONNADE_FUZZ_EXAMPLES", "40"))
# Seconds one example may take before it counts as a hang (the work is bounded, so a
# correct reader takes milliseconds).
EXAMPLE_SECONDS = 5.0

# The fuzzers' hypothesis profile: few examples, a deadline far above what a bounded
# read takes (milliseconds), the same examples on every CI run. A deadline only fires
# once an example returns, so :func:`bounded` also stops one that hangs.
settings.register_profile(
    "colonnade-fuzz",
    max_examples=EXAMPLES,
    deadline=20_000,  # ms
    derandomize=os.environ.get("COLONNADE_FUZZ_EXAMPLES") is None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FUZZ = settings.get_profile("colonnade-fuzz")

# Values a hostile length or count takes: just past a bound, or far past it.
HUGE = [2**24, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**62, 2**63 - 1, 2**63, 2**64 - 1]


class Hang(Exception):
    """An example ran past :data:`EXAMPLE_SECONDS`."""


@contextlib.contextmanager
def bounded(seconds=EXAMPLE_SECONDS):
    """Raise :class:`Hang` inside the block after ``seconds`` (main thread only)."""

    def expire(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def varint(n: int) -> bytes:
    """Protobuf's varint of ``n`` (an unsigned 64-bit value, or longer for a malformed
    one: each 7 bits a byte)."""
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _apply(data: bytes, op) -> bytes:
    kind, where, value = op
    at = where % (len(data) + 1)
    if kind == "truncate":
        return data[:at]
    if kind == "flip" and data:
        at = where % len(data)
        return data[:at] + bytes([data[at] ^ (value % 255 + 1)]) + data[at + 1 :]
    if kind == "varint":  # a huge (or over-long, 11-byte) varint planted over what was there
        planted = b"\xff" * 10 + b"\x01" if value is None else varint(value)
        return data[:at] + planted + data[at + len(planted) :]
    if kind == "uint64":  # a fixed 8-byte little-endian length, as TFRecord's header holds
        return data[:at] + (value % 2**64).to_bytes(8, "little") + data[at + 8 :]
    if kind == "repeat":  # a block repeated, as a crafted index or record stream would
        end = min(len(data), at + 1 + value % 64)
        return data[:end] + data[at:end] * (2 + value % 50) + data[end:]
    if kind == "drop":
        return data[:at] + data[at + 1 + value % 64 :]
    return data


_OPS = st.tuples(
    st.sampled_from(["truncate", "flip", "varint", "uint64", "repeat", "drop"]),
    st.integers(0, 2**20),
    st.one_of(st.none(), st.sampled_from(HUGE), st.integers(0, 2**64 - 1)),
).map(lambda op: (op[0], op[1], 0 if op[2] is None and op[0] != "varint" else op[2]))


def mutations(max_ops=3):
    """A strategy of lists of mutations for :func:`mutate`."""
    return st.lists(_OPS, min_size=1, max_size=max_ops)


def mutate(data: bytes, ops) -> bytes:
    """``data`` with the mutations ``ops`` (from :func:`mutations`) applied in turn."""
    for op in ops:
        data = _apply(data, op)
    return data
