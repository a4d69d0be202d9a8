"""Reading evaluations back from event files (early stopping, BestExporter): a corrupt or
truncated record ends the file and keeps what came before it, as TF's summary_iterator
does; a file that is not a record file, or a missing folder, reads as no evaluations."""

import os

from tensorboardX import SummaryWriter

from colonnade.estimators.hooks.early_stopping import read_eval_metrics


def _events(folder, steps):
    with SummaryWriter(str(folder)) as writer:
        for step in steps:
            writer.add_scalar("loss", 1.0 / step, step)
    (path,) = [folder / name for name in os.listdir(folder)]
    return path


def test_a_corrupt_last_record_keeps_the_evaluations_before_it(tmp_path, caplog):
    path = _events(tmp_path, [10, 20, 30])
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF  # inside the last record's data: its checksum fails
    path.write_bytes(bytes(data))
    assert list(read_eval_metrics(tmp_path)) == [10, 20]
    assert "skipping the rest of the event file" in caplog.text


def test_a_truncated_file_keeps_its_whole_records(tmp_path):
    path = _events(tmp_path, [10, 20, 30])
    path.write_bytes(path.read_bytes()[:-7])
    assert list(read_eval_metrics(tmp_path)) == [10, 20]


def test_garbage_and_missing_folders_read_as_nothing(tmp_path):
    (tmp_path / "events.out.tfevents.1.host").write_bytes(b"\xff" * 64)
    assert read_eval_metrics(tmp_path) == {}
    assert read_eval_metrics(tmp_path / "missing") == {}
