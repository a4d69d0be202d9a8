"""``TextLineDataset``: the lines of text files, one string column ``line``, as
``tf.data.TextLineDataset`` gives them, streamed by pyarrow's reader.

TF programs read CSV this way: ``TextLineDataset(path).skip(1).map(parse_csv)`` with a
``parse_csv`` built on ``decode_csv`` that returns ``(features, labels)``. The same code
runs here: ``map`` hands the function a batch of lines (``decode_csv`` takes it as it
is) and the pair it returns labels the dataset (see :mod:`.pair_maps`; on other
datasets a map returns one batch, and :meth:`~.dataset.Dataset.with_label` labels).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
>>> _ = open(path, "w").write("age,label\\n39,1\\n50,0\\n")
>>> TextLineDataset(path).skip(1).to_table().column("line").to_pylist()
['39,1', '50,0']
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as pads

from .dataset import Dataset, check_parallel_calls
from .pair_maps import pair_map
from .plan import Map

__all__ = ["LINE_COLUMN", "LineStream", "TextLineDataset", "TextLines"]

LINE_COLUMN = "line"
_NO_DELIMITER = "\x1f"  # ASCII unit separator: lines are not split (one inside is refused)


def lines_format(skip: int) -> pads.CsvFileFormat:
    """Read each line whole as the string column :data:`LINE_COLUMN`, after dropping the
    first ``skip`` lines of each file."""
    return pads.CsvFileFormat(
        parse_options=pacsv.ParseOptions(
            delimiter=_NO_DELIMITER, quote_char=False, escape_char=False, ignore_empty_lines=False
        ),
        read_options=pacsv.ReadOptions(column_names=[LINE_COLUMN], skip_rows=skip),
        convert_options=pacsv.ConvertOptions(
            column_types={LINE_COLUMN: pa.string()}, strings_can_be_null=False
        ),
    )


class LineStream(Dataset):
    """A dataset of text lines, or of what shuffling, repeating or mapping them gives
    before it is labelled: its :meth:`map` may return ``(features, labels)``, as TF's
    ``parse_csv`` does, which labels the dataset (see :mod:`.pair_maps`)."""

    def with_plan(self, node, batched: bool | None = None) -> Dataset:
        batched = self.batched if batched is None else batched
        if self.label is not None:
            return Dataset(node, label=self.label, batched=batched)
        return LineStream(node, batched=batched)

    def map(self, fn, num_parallel_calls=None, deterministic=None) -> Dataset:
        if not callable(fn):
            return super().map(fn)  # its error
        check_parallel_calls(num_parallel_calls)
        paired, label = pair_map(fn, self.schema)
        if label is None:
            return super().map(fn)
        return Dataset(Map(self.plan, paired), batched=self.batched).with_label(label)


class TextLines(LineStream):
    """The lines of ``filenames``; :meth:`skip` drops the first lines of each file."""

    def __init__(self, filenames, skipped: int = 0):
        self.filenames, self.skipped = filenames, skipped
        super().__init__(Dataset.from_files(filenames, format=lines_format(skipped)).plan)

    def skip(self, count: int) -> TextLines:
        """Without the first ``count`` lines of each file (TF's ``skip`` right after
        ``TextLineDataset``: a header line). TF skips them once over all the files; per
        file is what header lines need (``docs/tf_differences.md``)."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"skip takes a count >= 0, got {count!r}")
        return TextLines(self.filenames, self.skipped + count)


def TextLineDataset(  # noqa: N802 (TF's name)
    filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None
) -> TextLines:
    """The lines of ``filenames`` (a path, glob or list; read in order), without their
    line ends, as the string column ``line``. ``compression_type`` ``"GZIP"`` needs file
    names ending in ``.gz`` (the reader decompresses by extension); ``buffer_size`` and
    ``num_parallel_reads`` are accepted and not needed.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "w").write("one\\ntwo\\n")
    >>> TextLineDataset(path).to_table().column("line").to_pylist()
    ['one', 'two']
    """
    if compression_type not in (None, ""):
        names = [filenames] if isinstance(filenames, (str, os.PathLike)) else list(filenames)
        if compression_type != "GZIP" or not all(str(n).endswith(".gz") for n in names):
            raise ValueError(
                f"TextLineDataset reads compression_type={compression_type!r} only as GZIP "
                "files named *.gz; got " + ", ".join(map(str, names[:3]))
            )
    return TextLines(filenames)
