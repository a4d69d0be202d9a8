"""``TextLineDataset``: the lines of text files, one string column ``line``, as
``tf.data.TextLineDataset`` gives them, streamed by pyarrow's reader.

TF programs read CSV this way: ``TextLineDataset(path).skip(1).map(parse_csv)`` with a
``parse_csv`` built on ``decode_csv`` that returns ``(features, labels)``. The same code
runs here: ``map`` hands the function a batch of lines (``decode_csv`` takes it as it
is) and the pair it returns labels the dataset (see :mod:`.element_streams`).

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

from .dataset import Dataset
from .element_streams import as_batch_view

__all__ = ["LINE_COLUMN", "TextLineDataset", "TextLines"]

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


class TextLines(Dataset):
    """The lines of ``filenames``; :meth:`skip` drops the first lines of each file. Its
    :meth:`map` function receives a batch of lines (a one-column RecordBatch, which
    ``decode_csv`` takes) and may return ``(features, labels)``, as TF's ``parse_csv``
    does (see :mod:`.element_streams`)."""

    def __init__(self, filenames, skipped: int = 0):
        self.filenames, self.skipped = filenames, skipped
        plan = Dataset.from_files(filenames, format=lines_format(skipped)).plan
        super().__init__(plan, view=as_batch_view)

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
