"""Issue 29's weak cases, each one clear error naming the thing that is wrong.

(A TFRecord length of 2^63 is in test_fuzz_tfrecord.py, with the reader's fuzzer.)
"""

import pytest
from fuzzhelpers import varint

import colonnade as cn
from colonnade.cli.job import load_config
from colonnade.feature_columns.config_checks import ConfigError

SPECS = {
    "s": cn.io.VarLenFeature("string"),
    "f": cn.io.FixedLenFeature([], "float32", default_value=0.0),
}
HUGE_LENGTH = 2**63


def field(number: int, body: bytes) -> bytes:
    """A length-delimited field holding ``body``."""
    return varint(number << 3 | 2) + varint(len(body)) + body


def lying_field(number: int, length: int) -> bytes:
    """A length-delimited field that declares ``length`` bytes and holds none."""
    return varint(number << 3 | 2) + varint(length)


def example(entry: bytes) -> bytes:
    """Example{features: Features{feature: entry}}."""
    return field(1, field(1, entry))


# tf.Example's nesting, a 2^63 length planted at each level:
# Example.features > Features.feature (map entry: key, value) > Feature.*_list > values
LYING_AT = {
    "Example.features": (lying_field(1, HUGE_LENGTH), "tf.train.Example"),
    "Features.feature": (field(1, lying_field(1, HUGE_LENGTH)), "tf.train.Features"),
    "the entry's key": (example(lying_field(1, HUGE_LENGTH)), "tf.train.Features"),
    "the entry's value": (
        example(field(1, b"s") + lying_field(2, HUGE_LENGTH)),
        "tf.train.Features",
    ),
    "Feature.bytes_list": (
        example(field(1, b"s") + field(2, lying_field(1, HUGE_LENGTH))),
        "tf.train.Feature",
    ),
    "BytesList.value": (
        example(field(1, b"s") + field(2, field(1, lying_field(1, HUGE_LENGTH)))),
        "bytes_list",
    ),
    "FloatList.value (packed)": (
        example(field(1, b"f") + field(2, field(2, lying_field(1, HUGE_LENGTH)))),
        "float_list",
    ),
}


@pytest.mark.parametrize("level", list(LYING_AT))
def test_a_length_of_2_to_the_63_at_any_level_names_the_record(level):
    """Weak case "IndexError for a tf.Example length of 2^63": the map entry's fast path
    turned the length negative and indexed the buffer with it (an IndexError for the
    entry's key)."""
    record, message = LYING_AT[level]
    with pytest.raises(
        ValueError,
        match=rf"record 1(, feature '[sf]')? is not a valid serialized {message}: field \d "
        r"declares a length of "
        r"2\^63 bytes or more",
    ):
        cn.io.parse_example([example(b""), record], SPECS)


@pytest.mark.parametrize("inside", [False, True])
def test_an_eleven_byte_varint_is_called_malformed_naming_the_record(inside):
    """Weak case "a field number of 0 for an 11-byte varint"."""
    eleven = b"\xff" * 10 + b"\x01"
    record = (
        example(field(1, b"f") + field(2, field(2, b"\x0a" + eleven)))
        if inside
        else b"\x0a" + eleven
    )
    malformed = r"record 0(, feature .f.)? is not a valid .*a malformed varint"
    with pytest.raises(ValueError, match=malformed) as info:
        cn.io.parse_example([record], SPECS)
    assert "field number of 0" not in str(info.value)


JOB = """\
[data]
train = "t.parquet"
label = "y"
{data}
[model]
type = "DNNClassifier"
model_dir = "m"
hidden_units = [{hidden}]
feature_columns = [{{type = "numeric_column", key = "x"}}]
"""


@pytest.mark.parametrize(
    "data,hidden,field",
    [
        ("epochs = 18446744073709551616", 4, "data.epochs"),
        ("", 2**64, r"model.hidden_units\[0\]"),
        ("", -(2**63) - 1, r"model.hidden_units\[0\]"),
    ],
)
def test_an_integer_over_64_bits_in_a_config_names_its_key(tmp_path, data, hidden, field):
    """Weak case: numpy's "Maximum allowed dimension exceeded" for hidden_units = [2^64]
    named no field (TOML's integers are 64-bit; Python's parser takes any)."""
    path = tmp_path / "job.toml"
    path.write_text(JOB.format(data=data, hidden=hidden))
    with pytest.raises(ConfigError, match=rf"^{field}: the integer -?\d+ does not fit in 64 bits"):
        load_config(path)


def test_a_batch_size_of_2_to_the_62_in_a_config_is_one_line_naming_it(tmp_path):
    """Weak case: a 56-line OverflowError from pyarrow's reader thread at training time; the
    config is refused when loaded."""
    path = tmp_path / "job.toml"
    path.write_text(JOB.format(data=f"batch_size = {2**62}", hidden=4))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        "data.batch_size: expected an integer from 1 to 2,147,483,647 (2^31 - 1), got "
        "4,611,686,018,427,387,904"
    )
