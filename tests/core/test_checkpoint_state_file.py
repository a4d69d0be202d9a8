"""Issue 41 (WEAK, Other): a 50 MB ``checkpoint`` state file took 26 s to read (a Python
step per character of a path). The file is now bounded (``MAX_STATE_BYTES``, refused
unread naming the file) and read in linear time (escapes by Python's C decoder)."""

import time

import pytest

from colonnade.core.checkpoint_errors import CheckpointCorruptedError
from colonnade.core.checkpoint_state import MAX_STATE_BYTES, get_checkpoint_state


def _write(path, text):
    (path / "checkpoint").write_bytes(text.encode("utf-8"))


def test_a_state_file_over_the_bound_is_refused_unread_naming_it(tmp_path):
    _write(tmp_path, 'model_checkpoint_path: "' + "x" * MAX_STATE_BYTES + '"\n')
    began = time.perf_counter()
    with pytest.raises(
        CheckpointCorruptedError,
        match=rf"state file {tmp_path}/checkpoint holds {MAX_STATE_BYTES + 26} bytes, more "
        rf"than the {MAX_STATE_BYTES} a checkpoint state file may",
    ):
        get_checkpoint_state(tmp_path)
    assert time.perf_counter() - began < 1.0


def test_tfs_escapes_are_decoded(tmp_path):
    # TF 2.15's text format: \" \\ \n \t \r \' octal \ooo and hex \xhh (é is \303\251).
    _write(tmp_path, 'model_checkpoint_path: "a\\"b\\\\c\\303\\251\\x41\\n\\t\\r\\\'z"\n')
    state = get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == str(tmp_path / "a\"b\\céA\n\t\r'z")


@pytest.mark.parametrize("bad", ["\\q", "\\12", "\\x4", "\\"])
def test_a_bad_escape_is_refused(tmp_path, bad):
    _write(tmp_path, f'model_checkpoint_path: "ckpt{bad}"\n')
    with pytest.raises(CheckpointCorruptedError, match="bad escape|expected a quoted string"):
        get_checkpoint_state(tmp_path)


def test_an_escaped_backslash_before_digits_is_not_an_octal_escape(tmp_path):
    _write(tmp_path, 'model_checkpoint_path: "c\\\\101"\n')  # \\ then 101
    assert get_checkpoint_state(tmp_path).model_checkpoint_path == str(tmp_path / "c\\101")


def test_reading_is_linear_in_the_escapes(tmp_path):
    """1M escapes (4 MB): decoded in C; the per-character loop took about 9 s here."""
    _write(tmp_path, 'model_checkpoint_path: "' + "\\101" * 10**6 + '"\n')
    began = time.perf_counter()
    state = get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == str(tmp_path / ("A" * 10**6))
    assert time.perf_counter() - began < 5.0
