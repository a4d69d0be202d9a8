"""Fuzzing the CSV readers (issue 41): random bytes and mutated valid CSV files read, or
raise one ``ValueError`` naming the file, within the time bound; never a raw pyarrow
(``ArrowInvalid`` is a ValueError too: the type must be ValueError itself), codec or
Python error.

Seeds are small valid files with quoted fields, quoted line ends, doubled quotes, empty
fields, numbers and text. Mutations are the byte-level ones of :mod:`fuzzhelpers` and
CSV-level ones: a quote, delimiter or line end planted, a byte not valid UTF-8, a long
run of one byte. Every way colonnade reads CSV runs on each example: ``Dataset.from_csv``
(with and without an encoding), ``make_csv_dataset`` and ``decode_csv`` of the lines of
``TextLineDataset``.
"""

import time

import numpy as np
import pytest
from fuzzhelpers import FUZZ, bounded, mutate, mutations
from hypothesis import given
from hypothesis import strategies as st

import colonnade as cn
from colonnade.data import Dataset, TextLineDataset

SEEDS = [
    b'id,name,score\n1,"Smith, J",0.5\n2,"two\nlines",1.5\n3,"say ""hi""",\n4,plain,2\n',
    b"a;b;c\n1;x;2.5\n;y;\n3;z;4\n",
    b"x,y\n" + b"".join(b"%d,%d\n" % (i, i % 2) for i in range(60)),
]
_PLANTED = [b'"', b",", b"\n", b"\r\n", b"\xff", b"\xe9", b'""', b',"', b"\x00"]


@st.composite
def csv_mutations(draw):
    """A list of CSV-level mutations: ``(where, planted bytes)``."""
    ops = []
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, 2**16))
        if draw(st.booleans()):
            planted = draw(st.sampled_from(_PLANTED))
        else:
            planted = draw(st.sampled_from([b"x", b'"', b","])) * draw(st.integers(1, 5000))
        ops.append((where, planted))
    return ops


def plant(data: bytes, ops) -> bytes:
    for where, planted in ops:
        at = where % (len(data) + 1)
        data = data[:at] + planted + data[at:]
    return data


def read_everything(path):
    """Every way colonnade reads a CSV file, each read to its end."""
    Dataset.from_csv(path).to_table()
    Dataset.from_csv(path, encoding="latin-1").to_table()
    for _ in cn.data.experimental.make_csv_dataset(path, 16, shuffle=False, num_epochs=1):
        pass
    lines = TextLineDataset(path).to_table().column("line")
    if len(lines):
        cn.io.decode_csv(lines, [[""]] * 3)


def check_read(path):
    """Read ``path``; only a ValueError (the type itself) naming the file may come out,
    within the time bound (decode_csv's TF errors name the record instead)."""
    try:
        with bounded():
            read_everything(path)
    except ValueError as err:
        assert type(err) is ValueError, f"{type(err).__name__}: {err}"
        message = str(err)
        assert str(path) in message or "record" in message, message


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_seeds_read(tmp_path, seed):
    path = tmp_path / "seed.csv"
    path.write_bytes(SEEDS[seed])
    Dataset.from_csv(str(path)).to_table()


@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("random") / "random.csv"
    path.write_bytes(data)
    check_read(str(path))


@FUZZ
@given(seed=st.sampled_from(SEEDS), ops=mutations())
def test_byte_mutations_of_valid_files(tmp_path_factory, seed, ops):
    path = tmp_path_factory.mktemp("mutated") / "mutated.csv"
    path.write_bytes(mutate(seed, ops))
    check_read(str(path))


@FUZZ
@given(seed=st.sampled_from(SEEDS), ops=csv_mutations())
def test_csv_mutations_of_valid_files(tmp_path_factory, seed, ops):
    path = tmp_path_factory.mktemp("planted") / "planted.csv"
    path.write_bytes(plant(seed, ops))
    check_read(str(path))


@pytest.mark.parametrize(
    "unit",
    [b'"', b',"', b'""', b'"a""', b"\xff", b'x,"y\n'],
    ids=["quotes", "opened-fields", "doubled", "escaped", "bad-utf8", "open-lines"],
)
def test_hostile_files_take_linear_time(tmp_path, unit):
    """The scans that find the line at fault take time linear in the file: 4x the bytes
    takes well under 16x the time (a quadratic scan)."""
    times = []
    for repeat in (50_000, 200_000):
        path = tmp_path / f"hostile{repeat}.csv"
        path.write_bytes(b"a,b\n" + unit * repeat)
        start = time.perf_counter()
        check_read(str(path))
        times.append(time.perf_counter() - start)
    assert times[1] < 8 * times[0] + 0.5, times


def test_decode_csv_of_random_lines_is_a_result_or_a_value_error():
    rng = np.random.default_rng(0)
    alphabet = np.frombuffer(b'ab1,"\n ', np.uint8)
    for _ in range(200):
        lines = ["".join(map(chr, rng.choice(alphabet, rng.integers(1, 12)))) for _ in range(4)]
        try:
            cn.io.decode_csv(lines, [[""], [""]])
        except ValueError as err:
            assert type(err) is ValueError, f"{type(err).__name__}: {err}"
