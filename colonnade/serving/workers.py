"""Where a request's work runs, and its budgets: never on the server's event loop.

- A body of at most ``Limits.inline_body_bytes`` of JSON is decoded on a worker thread
  (JSON and Arrow conversion of a few kB take well under a millisecond).
- A bigger body, and any body of serialized ``tf.Example`` records (their parse is pure
  Python: ~40 µs a value, so one 1,000,000-value feature takes a core for half a
  minute), is decoded in a **parse process** (:class:`ParsePool`): it holds no GIL of
  the server's, runs under a memory limit (``RLIMIT_DATA``), and is killed and replaced
  when its request runs past its time budget.
- Predictions run on the worker threads (numpy and Arrow release the GIL in their heavy
  work); small requests arriving together share one model call (:class:`Batcher`).

Every request has a time budget (``Limits.request_seconds``) from its first byte to its
answer: past it, the client gets 503 and the server moves on. A request waits for a
thread or parse process at most its budget, and at most ``Limits.max_pending`` requests
are in work at once: past that, 503 straight away. Sizes past the limits get 413.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

from .limits import Limits
from .requests import BadRequest, Decoded, InputSpec, NeedsParseProcess, decode_request

__all__ = ["Batcher", "Limits", "ParsePool", "WorkerPools", "predict_arrays"]

logger = logging.getLogger("colonnade.serving")


PARSE_NICENESS = 10
"""How much lower a parse process's CPU priority is than the server's: on a busy
machine the big and serialized-example bodies wait, not the small requests."""


class Busy(Exception):
    """The server is over a budget: answered 503 with the reason."""


def predict_arrays(model, table: pa.Table) -> dict:
    """``{output: array}`` of ``model``'s predictions for ``table``; a model that cannot
    take these inputs is the client's error."""
    try:
        return model.predict(table)
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        raise BadRequest(f"the model cannot predict these inputs: {message}") from None


# --------------------------------------------------------------------------- parse processes


def _data_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def parse_process_main(conn, memory_bytes: int) -> None:
    """A parse process: decode each ``(verb, raw, spec)`` it receives and send back
    ``("ok", Arrow IPC bytes, rows)`` or ``("error", status, message)``, under a data
    memory limit of ``memory_bytes`` beyond what it holds after its imports, at a lower
    CPU priority (:data:`PARSE_NICENESS`)."""
    os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"  # allocations the limit can see
    if hasattr(os, "nice"):
        os.nice(PARSE_NICENESS)  # big bodies yield the CPU to the server's small requests
    import resource

    import pyarrow  # noqa: F401 - imported before the limit is set

    from ..data import example  # noqa: F401

    if os.path.exists("/proc/self/status"):
        limit = _data_bytes() + memory_bytes
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    conn.send(("ready",))
    while True:
        try:
            verb, raw, spec = conn.recv()
        except (EOFError, OSError):
            return
        try:
            decoded = decode_request(verb, raw, spec, examples_allowed=True)
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, decoded.table.schema) as writer:
                writer.write_table(decoded.table)
            reply = ("ok", sink.getvalue().to_pybytes(), decoded.rows, decoded.signature)
        except BadRequest as e:
            reply = ("error", e.status, str(e))
        except MemoryError:
            reply = (
                "error",
                413,
                f"the request needs more than the {memory_bytes:,}-byte "
                "memory budget to decode; send fewer rows per request",
            )
        except Exception as e:  # noqa: BLE001 - answered, and the process goes on
            reply = ("error", 500, f"internal error decoding the request ({type(e).__name__})")
        del raw
        conn.send(reply)


SPAWN_SECONDS = 60.0
"""The longest a new parse process may take to start (its imports) before the first
task it is given; a request's time budget counts from then, so the first request that
needs one, or the one after a process was replaced, is not answered 503 for its start."""


class ParseProcess:
    """One spawned parse process (:func:`parse_process_main`) and its pipe; ``call``
    gives it a task and waits its budget for the reply."""

    def __init__(self, memory_bytes: int):
        self.ready = False
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=parse_process_main,
            args=(child, memory_bytes),
            daemon=True,
            name="colonnade-parse",
        )
        self.process.start()
        child.close()

    def call(self, task, seconds: float):
        """Send ``task`` and wait ``seconds`` at most for the reply; ``None`` past them,
        ``("ended",)`` if the process ended meanwhile (then it is killed in both)."""
        try:
            if not self.ready:  # its start is not the request's time
                if not self.conn.poll(SPAWN_SECONDS) or self.conn.recv() != ("ready",):
                    raise EOFError
                self.ready = True
            self.conn.send(task)
            if self.conn.poll(max(seconds, 0.0)):
                return self.conn.recv()
            reply = None
        except (EOFError, OSError):
            reply = ("ended",)
        self.kill()
        return reply

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class ParsePool:
    """``size`` parse processes (spawned, so they share nothing with the server), started
    by the first request that needs one (a server of small JSON requests never pays
    their memory); a request takes an idle one, waiting its budget at most, and one past
    its budget is killed and replaced."""

    def __init__(self, size: int, memory_bytes: int):
        self.size, self.memory_bytes = size, memory_bytes
        self._idle: asyncio.Queue | None = None
        self._waiters = ThreadPoolExecutor(size, thread_name_prefix="colonnade-parse-wait")

    def _queue(self) -> asyncio.Queue:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self.size):
                self._idle.put_nowait(ParseProcess(self.memory_bytes))
        return self._idle

    async def decode(self, verb: str, raw: bytes, spec: InputSpec, deadline: float) -> Decoded:
        loop = asyncio.get_running_loop()
        idle = self._queue()
        try:
            worker = await asyncio.wait_for(idle.get(), deadline - loop.time())
        except asyncio.TimeoutError:
            raise Busy(
                f"every parse process stayed busy for this request's time budget; "
                f"try again later ({self.size} parse process(es))"
            ) from None
        reply = None
        try:
            remaining = deadline - loop.time()
            reply = await loop.run_in_executor(
                self._waiters, worker.call, (verb, raw, spec), remaining
            )
        finally:
            if reply is None or reply[0] == "ended":
                worker = await loop.run_in_executor(self._waiters, ParseProcess, self.memory_bytes)
            idle.put_nowait(worker)
        if reply is None:
            raise Busy("decoding the request ran past its time budget; it was stopped")
        if reply[0] == "ended":
            raise BadRequest(
                "the parse process ended while decoding this request (over its "
                f"{self.memory_bytes:,}-byte memory budget?); send fewer rows per request",
                413,
            )
        if reply[0] == "error":
            raise BadRequest(reply[2], reply[1]) if reply[1] < 500 else RuntimeError(reply[2])
        with pa.ipc.open_stream(reply[1]) as reader:
            return Decoded(reader.read_all(), reply[2], reply[3])

    def close(self) -> None:
        if self._idle is not None:
            while not self._idle.empty():
                self._idle.get_nowait().kill()
        self._waiters.shutdown(wait=False)


# --------------------------------------------------------------------------- batching


class Batcher:
    """Merges the small predict requests that arrive together into one model call, as
    TF Serving's batching does: a model call costs nearly the same for one row as for a
    few dozen, so concurrent clients share it.

    The first request of a batch schedules a flush one loop turn later; the requests
    decoded meanwhile join it. The flush runs on ``executor`` (a worker thread): tables
    of one model and one schema are concatenated and predicted at once, and each request
    gets its own rows back. Should the merged call fail, each request is predicted
    alone so only a bad one gets its error.
    """

    def __init__(self, executor=None, max_rows: int = 256):
        self.executor, self.max_rows = executor, max_rows
        self._pending: list = []  # (model, table, future)
        self._rows = 0
        self._flush_scheduled = False

    async def predict(self, model, table: pa.Table) -> dict:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((model, table, future))
        self._rows += table.num_rows
        if self._rows >= self.max_rows:
            self._flush(loop)
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush_soon, loop)
        return await future

    def _flush_soon(self, loop) -> None:
        # One more loop turn: handlers of requests read in the same turn reach the queue.
        loop.call_soon(self._flush, loop)

    def _flush(self, loop) -> None:
        pending, self._pending, self._rows = self._pending, [], 0
        self._flush_scheduled = False
        if not pending:
            return
        work = loop.run_in_executor(self.executor, _predict_pending, pending)
        work.add_done_callback(lambda done: _deliver(pending, done))


def _predict_pending(pending: list) -> list:
    """``(ok, value)`` for each ``(model, table, future)`` of ``pending``, in order."""
    outcomes = [None] * len(pending)
    groups: dict = {}
    for i, (model, table, _) in enumerate(pending):
        groups.setdefault((id(model), table.schema), []).append(i)
    for indices in groups.values():
        model = pending[indices[0]][0]
        if len(indices) > 1:
            try:
                arrays = predict_arrays(model, pa.concat_tables([pending[i][1] for i in indices]))
            except Exception:  # noqa: BLE001 - retried one by one below, for each its own error
                arrays = None
            if arrays is not None:
                start = 0
                for i in indices:
                    stop = start + pending[i][1].num_rows
                    outcomes[i] = (True, {k: v[start:stop] for k, v in arrays.items()})
                    start = stop
                continue
        for i in indices:
            try:
                outcomes[i] = (True, predict_arrays(model, pending[i][1]))
            except Exception as e:  # noqa: BLE001 - handed to the request's handler
                outcomes[i] = (False, e)
    return outcomes


def _deliver(pending: list, done) -> None:
    error = done.exception()
    for i, (_, _, future) in enumerate(pending):
        if future.done():  # the client went away, or its budget ran out
            continue
        if error is not None:
            future.set_exception(error)
        else:
            ok, value = done.result()[i]
            future.set_result(value) if ok else future.set_exception(value)


# --------------------------------------------------------------------------- the pools


class WorkerPools:
    """The threads, parse processes and batcher of one app, and the budgets they keep."""

    INLINE_ROWS = 64
    """Requests of at most this many rows are merged with those arriving with them."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.threads = ThreadPoolExecutor(limits.threads, thread_name_prefix="colonnade-serve")
        self.parsers = ParsePool(limits.parse_processes, limits.parse_memory_bytes)
        self.batcher = Batcher(self.threads, max_rows=self.INLINE_ROWS * 4)
        self._in_work = 0
        self._lock = threading.Lock()

    def admit(self) -> None:
        """Count a request in; :class:`Busy` past ``max_pending``."""
        with self._lock:
            if self._in_work >= self.limits.max_pending:
                raise Busy(
                    f"the server has {self._in_work} requests in work, its limit; try again later"
                )
            self._in_work += 1

    def release(self) -> None:
        with self._lock:
            self._in_work -= 1

    async def decode(self, verb: str, raw: bytes, spec: InputSpec, deadline: float) -> Decoded:
        """``raw`` decoded on a thread when small and plain JSON, else in a parse process."""
        if len(raw) <= self.limits.inline_body_bytes and b'"b64"' not in raw:
            try:
                return await self.on_thread(deadline, decode_request, verb, raw, spec, False)
            except NeedsParseProcess:
                pass
        return await self.parsers.decode(verb, raw, spec, deadline)

    async def on_thread(self, deadline: float, function, *args):
        """``function(*args)`` on a worker thread, answered 503 past ``deadline`` (the
        thread finishes its bounded work; its result is dropped)."""
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(self.threads, function, *args)
        return await self.within(deadline, work)

    async def within(self, deadline: float, awaitable):
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(awaitable, deadline - loop.time())
        except asyncio.TimeoutError:
            raise Busy(
                f"the request ran past its {self.limits.request_seconds:g}-second time budget"
            ) from None

    def close(self) -> None:
        self.parsers.close()
        self.threads.shutdown(wait=False)
