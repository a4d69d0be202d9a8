"""Reading TensorFlow checkpoints (TF's tensor-bundle format) without TensorFlow.

A TensorFlow checkpoint ``PREFIX`` (``model_dir/model.ckpt-100``, ``model_dir/ckpt-3``) is
an index file and one or more data shards next to TF's ``checkpoint`` state file::

    model_dir/
      checkpoint                               # the same state file colonnade writes
      model.ckpt-100.index                     # tensor name -> where its bytes are
      model.ckpt-100.data-00000-of-00001       # the tensors' bytes, back to back

The index is a LevelDB table ("SSTable"): data blocks of sorted key/value entries (each key
stored as the length it shares with the previous key plus the rest, with restart points),
an index block whose values locate the data blocks, a metaindex block and a 48-byte footer
ending in the magic number ``0xdb4775248b80fb57``. Every block is followed by a type byte
(0: stored as is; TF never compresses its index) and the masked CRC32C of the block and
that byte. The empty key holds a ``BundleHeaderProto`` (number of shards, endianness,
format version); every other key is a tensor name whose value is a ``BundleEntryProto``:
dtype, shape, shard, offset and size in that shard, and the masked CRC32C of its bytes.

A partitioned variable (TF 1.x ``fixed_size_partitioner`` and friends) is stored as one
entry under the variable's full name that lists its *slices*, and one entry per slice under
a binary key encoding the name and the slice; the reader presents the full variable, as
TF's readers do, and does not list the slice keys. String tensors are stored as the
varint lengths of the elements, a masked CRC32C of those lengths, then the bytes; they come
back as numpy ``object`` arrays of ``bytes``, as TF's ``load_variable`` returns them.
TF 2.x object-based checkpoints use the same format and name their variables by object
path (``model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE``); names are listed as stored.

Only the index is read up front; :meth:`TFCheckpointReader.get_tensor` reads and verifies
(CRC32C) only the tensor asked for. A truncated or corrupted file raises
:class:`~colonnade.core.checkpoint_errors.CheckpointCorruptedError` naming the file and the
tensor. The readers in :mod:`colonnade.core.checkpoint_format` (``list_variables``,
``load_variable``, ``load_checkpoint``, ``latest_checkpoint``, ...) dispatch here for any
``PREFIX`` with a ``PREFIX.index`` file.
"""

from __future__ import annotations

import math
import os

import google_crc32c
import numpy as np

from .checkpoint_errors import CheckpointCorruptedError, CheckpointVersionError
from .checkpoint_index import IndexedReader
from .crc import mask_crc, masked_crc
from .tf_bundle_index import parse_entry, parse_header, read_table, slice_key, varint

__all__ = ["TFCheckpointReader", "bundle_problem"]

INDEX_SUFFIX = ".index"
BUNDLE_VERSION = 1  # TF's kTensorBundleVersion: the newest bundle format read here
# The most slices of a variable partitioned along more than one axis: their overlaps are
# checked pair by pair (TF's partitioners cut along one axis, checked by sorting, at any
# count).
MAX_CROSS_CUT_SLICES = 4096

# TF's DataType enum (types.proto) -> numpy dtype; 7 (DT_STRING) is read separately.
DT_STRING = 7
NUMPY_DTYPES = {
    1: np.float32,
    2: np.float64,
    3: np.int32,
    4: np.uint8,
    5: np.int16,
    6: np.int8,
    8: np.complex64,
    9: np.int64,
    10: np.bool_,
    17: np.uint16,
    18: np.complex128,
    19: np.float16,
    22: np.uint32,
    23: np.uint64,
}
_TF_DTYPE_NAMES = {11: "qint8", 12: "quint8", 13: "qint32", 14: "bfloat16", 15: "qint16"}
_TF_DTYPE_NAMES.update({16: "quint16", 20: "resource", 21: "variant"})


# --------------------------------------------------------------------------- reader


class TFCheckpointReader(IndexedReader):
    """Reads the tensors of one TensorFlow checkpoint (TF's ``CheckpointReader``).

    ``prefix`` is the checkpoint's path without ``.index``. The index is read and checked
    when the reader is made; ``get_tensor`` reads and CRC-checks one tensor (joining a
    partitioned variable's slices). Names, shapes and values are what TF's
    ``tf.train.list_variables`` and ``tf.train.load_variable`` report.

    >>> import os, tempfile
    >>> TFCheckpointReader(tempfile.mkdtemp() + "/model.ckpt-1")
    Traceback (most recent call last):
    ...
    FileNotFoundError: TF checkpoint index .../model.ckpt-1.index does not exist
    """

    _kind = "TF checkpoint"
    _unit = "tensors"

    def __init__(self, prefix):
        self.path = os.fspath(prefix)
        self._index_file = self.path + INDEX_SUFFIX
        try:
            with open(self._index_file, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"TF checkpoint index {self._index_file} does not exist"
            ) from None
        try:
            table = read_table(data, f"index file {self._index_file}")
            if b"" not in table:
                raise ValueError(f"index file {self._index_file} has no bundle header")
            header = parse_header(table.pop(b""), f"the header of {self._index_file}")
            entries = {
                key: parse_entry(value, f"the entry of {key!r}") for key, value in table.items()
            }
        except ValueError as e:
            raise CheckpointCorruptedError(f"TF checkpoint {self.path}: {e}") from e
        self._check_header(header)
        self.num_shards = header["num_shards"]
        self._byte_order = "<" if header["endianness"] == 0 else ">"
        slice_keys = set()
        for key, entry in entries.items():
            for extents in entry["slices"]:
                slice_keys.add(slice_key(key.decode("utf-8", "replace"), extents))
        self._slices = {k: entries[k] for k in slice_keys if k in entries}
        self._entries = {
            key.decode("utf-8", "replace"): entry
            for key, entry in entries.items()
            if key not in slice_keys
        }

    def _check_header(self, header):
        where = f"TF checkpoint {self.path} (index file {self._index_file})"
        if header["min_consumer"] > BUNDLE_VERSION or BUNDLE_VERSION in header["bad_consumers"]:
            raise CheckpointVersionError(
                f"{where} needs a tensor-bundle reader of version {header['min_consumer']} or "
                f"newer (written by producer version {header['producer']}); colonnade reads "
                f"version {BUNDLE_VERSION}. Re-save it with an older TensorFlow"
            )
        if header["num_shards"] < 1 or header["endianness"] not in (0, 1):
            raise CheckpointCorruptedError(f"{where}: its header is invalid: {header}")

    # ---- the CheckpointReader interface (keys, has_tensor, ... from IndexedReader; the
    # slices of partitioned variables are not listed)

    def get_variable_to_dtype_map(self) -> dict:
        """``{name: numpy dtype}`` for every tensor; strings are ``object`` (of bytes)."""
        return {name: self._dtype(name, entry) for name, entry in self._entries.items()}

    def data_file(self, shard_id: int) -> str:
        """The path of data shard ``shard_id``: ``PREFIX.data-0000K-of-0000N``."""
        return f"{self.path}.data-{shard_id:05d}-of-{self.num_shards:05d}"

    def _dtype(self, name, entry) -> np.dtype:
        if entry["dtype"] == DT_STRING:
            return np.dtype(object)
        if entry["dtype"] not in NUMPY_DTYPES:
            tf_name = _TF_DTYPE_NAMES.get(entry["dtype"], f"DataType {entry['dtype']}")
            raise TypeError(
                f"tensor {name!r} of TF checkpoint {self.path} has dtype {tf_name}, which "
                "colonnade does not read (numeric, bool and string tensors only)"
            )
        return np.dtype(NUMPY_DTYPES[entry["dtype"]])

    def get_tensor(self, name: str) -> np.ndarray:
        """The numpy array ``name``, checked against its CRC32C; a partitioned variable
        comes back whole. Strings are an ``object`` array of ``bytes``."""
        entry = self._entry(name)
        if not entry["slices"]:
            return self._read(name, entry, entry["shape"])
        dtype = self._dtype(name, entry)
        self._check_slices_hold(name, entry, dtype)
        self._check_slices_tile(name, entry)
        pieces = [self._slice_entry(name, extents) for extents in entry["slices"]]
        full = (
            np.full(entry["shape"], b"", dtype)
            if dtype.hasobject
            else np.zeros(entry["shape"], dtype)
        )
        for extents, piece in zip(entry["slices"], pieces):
            index = tuple(slice(s, None if n < 0 else s + n) for s, n in extents)
            shape = full[index].shape
            full[index] = self._read(f"{name} (slice {extents})", piece, shape)
        return full

    def _check_slices_tile(self, name, entry) -> None:
        """The slices of a partitioned tensor lie inside it, do not overlap and cover it
        (checked on their extents, before anything is allocated): overlapping slices whose
        sizes add up to the whole would leave rows unread, silently."""
        shape = entry["shape"]
        boxes = []
        for extents in entry["slices"]:
            box = [(s, dim if n < 0 else s + n) for (s, n), dim in zip(extents, shape)]
            if len(extents) != len(shape) or any(s < 0 or e > d for (s, e), d in zip(box, shape)):
                raise CheckpointCorruptedError(
                    f"TF checkpoint {self.path}: slice {extents} of tensor {name!r} lies "
                    f"outside its shape {shape}"
                )
            boxes.append(box)
        try:
            overlap = first_overlap(np.array(boxes, np.int64).reshape(len(boxes), len(shape), 2))
        except ValueError as e:
            raise CheckpointCorruptedError(
                f"TF checkpoint {self.path}: tensor {name!r} has {e}"
            ) from None
        if overlap is not None:
            later, earlier = (entry["slices"][k] for k in overlap)
            raise CheckpointCorruptedError(
                f"TF checkpoint {self.path}: slice {later} of tensor {name!r} overlaps its "
                f"slice {earlier}"
            )
        covered = sum(math.prod(e - s for s, e in box) for box in boxes)
        if covered != math.prod(shape):
            raise CheckpointCorruptedError(
                f"TF checkpoint {self.path}: the slices of tensor {name!r} cover {covered:,} "
                f"of its {math.prod(shape):,} elements"
            )

    def _check_slices_hold(self, name, entry, dtype) -> None:
        """Before the whole of a partitioned tensor is allocated: its slices' stored bytes
        must be what its shape needs (an index may claim any shape)."""
        pieces = [self._slices.get(slice_key(name, extents)) for extents in entry["slices"]]
        if None in pieces:
            return  # reported by name once the extents are checked
        stored = sum(piece["size"] for piece in pieces)
        # a string takes at least the one byte of its length
        needed = math.prod(entry["shape"]) * (1 if dtype.hasobject else dtype.itemsize)
        if stored < needed if dtype.hasobject else stored != needed:
            at_least = "at least " if dtype.hasobject else ""
            raise CheckpointCorruptedError(
                f"TF checkpoint {self.path}: tensor {name!r} of shape {entry['shape']} needs "
                f"{at_least}{needed:,} bytes but its slices hold {stored:,}; the index is "
                "corrupted"
            )

    def _slice_entry(self, name, extents) -> dict:
        """The index entry of slice ``extents`` of tensor ``name``."""
        piece = self._slices.get(slice_key(name, extents))
        if piece is None:
            raise CheckpointCorruptedError(
                f"TF checkpoint {self.path}: index file {self._index_file} lists slice "
                f"{extents} of tensor {name!r} but holds no entry for it"
            )
        return piece

    def get_slices(self, name: str) -> list:
        """``[(index, array)]``: each saved slice of tensor ``name`` (``index`` a tuple of
        ``slice``s into the whole), checked against its CRC32C; ``[((), array)]`` for a
        tensor saved whole. TF 1.x saves the optimizer slots of a partitioned variable
        per partition (``v/part_0/Ftrl``, ``v/part_1/Ftrl``), each one slice of the whole
        shape: this reads them where :meth:`get_tensor`, which wants the whole, refuses."""
        entry = self._entry(name)
        if not entry["slices"]:
            return [((), self._read(name, entry, entry["shape"]))]
        out = []
        for extents in entry["slices"]:
            index = tuple(
                slice(s, dim if n < 0 else s + n) for (s, n), dim in zip(extents, entry["shape"])
            )
            shape = tuple(len(range(*i.indices(dim))) for i, dim in zip(index, entry["shape"]))
            piece = self._slice_entry(name, extents)
            out.append((index, self._read(f"{name} (slice {extents})", piece, shape)))
        return out

    def _read(self, name, entry, shape) -> np.ndarray:
        dtype = self._dtype(name, entry)
        file = self.data_file(entry["shard_id"])
        where = f"TF checkpoint {self.path}: tensor {name!r} in file {file}"
        count = math.prod(shape)
        if not dtype.hasobject and entry["size"] != count * dtype.itemsize:
            raise CheckpointCorruptedError(
                f"{where}: the index records {entry['size']} bytes for {dtype}{list(shape)} "
                f"({count * dtype.itemsize} expected); the index is corrupted"
            )
        try:
            file_size = os.path.getsize(file)
        except FileNotFoundError:
            raise CheckpointCorruptedError(f"{where}: the data file is missing") from None
        if min(entry["offset"], entry["size"]) < 0 or entry["size"] > file_size - entry["offset"]:
            raise CheckpointCorruptedError(
                f"{where}: the index places {entry['size']:,} bytes at offset "
                f"{entry['offset']:,}, outside the file's {file_size:,} bytes (a corrupted "
                "index, or a truncated file)"
            )
        with open(file, "rb") as f:
            f.seek(entry["offset"])
            raw = f.read(entry["size"])
        if len(raw) != entry["size"]:
            raise CheckpointCorruptedError(
                f"{where}: the file is truncated ({len(raw)} of {entry['size']} bytes at "
                f"offset {entry['offset']})"
            )
        if dtype.hasobject:
            crc, values = self._strings(raw, count, where)
        else:
            crc = masked_crc(raw)
            values = np.frombuffer(raw, dtype.newbyteorder(self._byte_order)).astype(dtype)
        if crc != entry["crc32c"]:
            raise CheckpointCorruptedError(
                f"{where}: checksum mismatch (CRC32C); the file is corrupted (restore it "
                "from a copy or use an earlier checkpoint)"
            )
        return values.reshape(shape)

    @staticmethod
    def _strings(raw: bytes, count: int, where: str) -> tuple:
        """``(masked CRC32C as TF computes it, object array of bytes)`` of a string tensor:
        ``count`` varint lengths, a masked CRC32C of them, then the bytes. TF's checksum
        covers each length as a little-endian uint32 (uint64 past 4 GiB), then the stored
        length checksum, then the bytes."""
        pos, lengths, crc = 0, [], 0
        try:
            for _ in range(count):
                length, pos = varint(raw, pos, len(raw), "the string lengths")
                lengths.append(length)
                crc = google_crc32c.extend(
                    crc, length.to_bytes(4 if length < 1 << 32 else 8, "little")
                )
        except ValueError as e:
            raise CheckpointCorruptedError(f"{where}: {e}") from None
        stored = raw[pos : pos + 4]
        if len(stored) < 4 or int.from_bytes(stored, "little") != mask_crc(crc):
            raise CheckpointCorruptedError(
                f"{where}: the string lengths fail their checksum (corrupted)"
            )
        crc = google_crc32c.extend(crc, stored)
        pos += 4
        if pos + sum(lengths) != len(raw):
            raise CheckpointCorruptedError(
                f"{where}: the string bytes do not match their lengths (corrupted)"
            )
        values = np.empty(count, dtype=object)
        for i, length in enumerate(lengths):
            values[i] = raw[pos : pos + length]
            pos += length
        crc = google_crc32c.extend(crc, raw[len(raw) - sum(lengths) :])
        return mask_crc(crc), values

    def problem(self, verify: bool = False) -> str | None:
        """Why this checkpoint is not intact, or ``None``: each data shard is checked to
        be long enough for its tensors; ``verify`` also reads and CRC-checks every one."""
        needed = {}
        for entry in [*self._entries.values(), *self._slices.values()]:
            if not entry["slices"]:
                end = entry["offset"] + entry["size"]
                needed[entry["shard_id"]] = max(needed.get(entry["shard_id"], 0), end)
        for shard, end in sorted(needed.items()):
            file = self.data_file(shard)
            try:
                size = os.path.getsize(file)
            except OSError:
                return f"data file {file} is missing"
            if size < end:
                return f"data file {file} is truncated ({size} bytes, {end} needed)"
        if verify:
            for name in self.keys():
                try:
                    self.get_tensor(name)
                except CheckpointCorruptedError as e:
                    return str(e)
        return None


def first_overlap(boxes: np.ndarray):
    """``(i, j)`` of two boxes that overlap (``j < i``; when boxes are cut along one axis
    only, as TF's partitioners cut, the pair is found by sorting), or ``None``.
    ``boxes[k, axis]`` is box ``k``'s ``(start, end)`` on ``axis``; a crafted index may
    list tens of thousands of slices, so there is no loop over pairs in Python."""
    starts, ends = boxes[..., 0], boxes[..., 1]
    cut = (starts != starts[:1]) | (ends != ends[:1])
    axes = np.flatnonzero(cut.any(axis=0))
    if boxes.shape[1] == 0:  # slices of a scalar: each is the whole
        return (1, 0) if len(boxes) > 1 else None
    if axes.size <= 1:  # intervals on one axis: after sorting, each starts after the last
        axis = int(axes[0]) if axes.size else 0
        order = np.lexsort((ends[:, axis], starts[:, axis]))
        reach = np.maximum.accumulate(ends[order, axis])
        bad = np.flatnonzero(starts[order[1:], axis] < reach[:-1])
        if not bad.size:
            return None
        later = order[bad[0] + 1]
        earlier = order[: bad[0] + 1][ends[order[: bad[0] + 1], axis] > starts[later, axis]][0]
        return max(int(later), int(earlier)), min(int(later), int(earlier))
    count = len(boxes)
    if count > MAX_CROSS_CUT_SLICES:
        raise ValueError(
            f"{count:,} slices cut along several axes (at most {MAX_CROSS_CUT_SLICES:,} are read)"
        )
    rows = max(1, (1 << 22) // count)  # every pair, a block of rows at a time
    for first in range(0, count, rows):
        s, e = starts[first : first + rows, None], ends[first : first + rows, None]
        hit = ((s < ends[None]) & (starts[None] < e)).all(axis=2)
        hit &= np.arange(first, first + len(s))[:, None] > np.arange(count)[None]
        if hit.any():
            i, j = np.argwhere(hit)[0]
            return first + int(i), int(j)
    return None


def bundle_problem(prefix, verify: bool = False) -> str | None:
    """Why TF checkpoint ``prefix`` is not intact, or ``None`` (see
    :meth:`TFCheckpointReader.problem`)."""
    try:
        return TFCheckpointReader(prefix).problem(verify)
    except (CheckpointCorruptedError, CheckpointVersionError, FileNotFoundError) as e:
        return str(e)
