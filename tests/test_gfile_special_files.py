"""Issue 41 (WEAK, gfile): reading a FIFO through gfile hung (it waits for a writer),
and ``/dev/zero`` never ends. gfile reads only regular files: either is an OSError
naming the path and what it is, at once."""

import os
import threading

import pytest

from colonnade.io import gfile


def _read_in_thread(path):
    result = {}

    def read():
        try:
            result["value"] = gfile.GFile(path, "rb").read()
        except OSError as e:
            result["error"] = e

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), f"reading {path} hung"
    return result


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = _read_in_thread(str(fifo))
    assert "error" in result, result
    assert str(result["error"]) == (
        f"gfile cannot read {str(fifo)!r}: it is a FIFO (named pipe), not a regular file"
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_is_refused_at_once():
    result = _read_in_thread("/dev/zero")
    assert "it is a device or socket, not a regular file" in str(result.get("error")), result


def test_a_regular_file_reads(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"abc")
    assert gfile.GFile(str(tmp_path / "a.txt"), "rb").read() == b"abc"
    assert gfile.GFile(str(tmp_path / "a.txt")).read() == "abc"


def test_zip_urls_are_refused_by_default(tmp_path, monkeypatch):
    """``zip://`` gave "seek of closed file"; like every protocol but local files and
    memory, it is refused unless COLONNADE_ALLOWED_PROTOCOLS lists it."""
    monkeypatch.delenv("COLONNADE_ALLOWED_PROTOCOLS", raising=False)
    url = f"zip://a.csv::{tmp_path / 'x.zip'}"
    with pytest.raises(ValueError, match=r"the zip:// protocol is not allowed"):
        gfile.GFile(url, "rb").read()
