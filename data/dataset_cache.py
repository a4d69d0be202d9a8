"""Caches for ``Dataset.cache()``: the first complete pass is kept, later passes replay it.

A pass that stops early (or fails) leaves no cache behind, as in TF. On disk the cache
is an Arrow IPC file written under a temporary name and renamed when complete, so a file
at the cache's path is always whole; it is reused by later runs, like TF's cache files.
"""

from __future__ import annotations

import os
import threading
import uuid

import pyarrow as pa

__all__ = ["FileCache", "MemoryCache"]


class MemoryCache:
    """Keep the batches of the first complete pass in a list."""

    def __init__(self):
        self._batches = None
        self._lock = threading.Lock()
        self._filling = False

    def describe(self):
        return "cache()"

    def replay(self):
        """An iterator over the cached batches, or None while there is no cache."""
        batches = self._batches
        return None if batches is None else iter(batches)

    def writer(self, schema):
        """A writer for this pass, or None when another pass is already filling."""
        with self._lock:
            if self._filling or self._batches is not None:
                return None
            self._filling = True
        return _MemoryWriter(self.end_fill)

    def end_fill(self, batches):
        """Called by the filling pass's writer when that pass ends: keep ``batches`` (a
        complete pass) or, with None, nothing; either way another pass may fill next."""
        if batches is not None:
            self._batches = batches
        self._filling = False


class _MemoryWriter:
    def __init__(self, end_fill):
        self._end_fill = end_fill
        self._batches = []

    def write(self, batch):
        self._batches.append(batch)

    def finish(self, complete):
        self._end_fill(self._batches if complete else None)


class FileCache:
    """Keep the first complete pass in the Arrow IPC file ``path`` (reused if it exists)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._filling = False

    def describe(self):
        return f"cache({self.path!r})"

    def replay(self):
        if not os.path.exists(self.path):
            return None
        return self._read()

    def _read(self):
        try:
            reader = pa.ipc.open_file(pa.memory_map(self.path))
        except (pa.ArrowException, OSError) as err:
            raise ValueError(
                f"cache file '{self.path}' is not a readable Arrow IPC file ({err}); "
                "delete it to rebuild the cache"
            ) from err
        for i in range(reader.num_record_batches):
            yield reader.get_batch(i)

    def writer(self, schema):
        with self._lock:
            if self._filling:
                return None
            self._filling = True
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            self._filling = False
            raise FileNotFoundError(f"cache directory '{directory}' does not exist")
        return _FileWriter(self.path, schema, self.end_fill)

    def end_fill(self):
        """Called by the filling pass's writer when that pass ends (its file renamed into
        place or removed): another pass may fill next."""
        self._filling = False


class _FileWriter:
    def __init__(self, path, schema, end_fill):
        self._path = path
        self._schema = schema
        self._end_fill = end_fill
        self._tmp = f"{path}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
        self._writer = None

    def write(self, batch):
        if self._writer is None:
            self._writer = pa.ipc.new_file(self._tmp, batch.schema)
        self._writer.write_batch(batch)

    def finish(self, complete):
        try:
            if self._writer is None and complete:
                self._writer = pa.ipc.new_file(self._tmp, self._schema or pa.schema([]))
            if self._writer is not None:
                self._writer.close()
            if complete:
                os.replace(self._tmp, self._path)
        finally:
            if os.path.exists(self._tmp):
                os.remove(self._tmp)
            self._end_fill()
