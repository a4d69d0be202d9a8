"""Issue 41 (gfile, weak case): by default colonnade's path-taking functions reach only
local files and ``memory://``; ``ftp://`` (or any other protocol) is refused before any
connection, with an error saying how to allow it (``COLONNADE_ALLOWED_PROTOCOLS``). Once
allowed, a protocol goes through fsspec as before: ``memory://`` stands in for gs:// or
s3:// (their packages and network are not here), allowed under another name by
registering it, so the allow-list is what is tested."""

import socket
import textwrap

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem

import colonnade as cn
from colonnade import cli
from colonnade.data.protocols import ProtocolNotAllowedError, allowed_protocols, check_protocol
from colonnade.io import gfile

FTP = "ftp://127.0.0.1:1/data/train.csv"


@pytest.fixture
def no_network(monkeypatch):
    """Any connection attempt fails the test: a refusal must come before one."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a connection was attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.delenv("COLONNADE_ALLOWED_PROTOCOLS", raising=False)


HOW = r"the ftp:// protocol is not allowed.*COLONNADE_ALLOWED_PROTOCOLS=ftp"


@pytest.mark.parametrize(
    "call",
    [
        lambda: gfile.exists(FTP),
        lambda: gfile.GFile(FTP, "rb"),
        lambda: gfile.listdir("ftp://127.0.0.1:1/"),
        lambda: gfile.copy("/etc/hostname", FTP),
        lambda: gfile.makedirs("FTP://127.0.0.1:1/d"),
        lambda: cn.io.read_file(FTP),
        lambda: cn.io.write_file(FTP, b"x"),
        lambda: cn.io.matching_files(["ftp://127.0.0.1:1/*.csv"]),
        lambda: cn.data.Dataset.from_files(FTP),
        lambda: cn.data.TextLineDataset(FTP).to_table(),
        lambda: cn.data.Dataset.from_files("simplecache::ftp://127.0.0.1:1/x.csv"),
        lambda: gfile.exists("simplecache::memory://x"),  # every protocol of a chain
    ],
    ids=[
        "exists",
        "gfile",
        "listdir",
        "copy",
        "upper",
        "read",
        "write",
        "glob",
        "dataset",
        "text_lines",
        "chain",
        "chained_cache",
    ],
)
def test_ftp_is_refused_by_default_before_any_connection(no_network, call):
    with pytest.raises(
        ProtocolNotAllowedError, match=r"protocol is not allowed.*COLONNADE_ALLOWED"
    ):
        call()


def test_the_message_names_the_path_and_the_setting(no_network):
    with pytest.raises(ValueError, match=rf"gfile cannot open '{FTP}': {HOW} \(comma-separated"):
        gfile.exists(FTP)


def test_a_job_config_naming_ftp_exits_2_saying_how_to_allow_it(no_network, tmp_path, capsys):
    cfg = tmp_path / "job.toml"
    cfg.write_text(
        textwrap.dedent(f"""
        [data]
        train = "{FTP}"
        label = "y"

        [model]
        type = "LinearClassifier"
        model_dir = "run"

        [[model.feature_columns]]
        type = "numeric_column"
        key = "x1"
        """)
    )
    assert cli.main(["train", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "ftp:// protocol is not allowed" in err and "COLONNADE_ALLOWED_PROTOCOLS=ftp" in err


def test_local_paths_and_memory_are_reached_by_default(no_network, tmp_path):
    path = tmp_path / "a.txt"
    cn.io.write_file(str(path), "one\ntwo\n")
    cn.io.write_file(f"file://{tmp_path}/b.txt", "three\n")
    assert cn.data.TextLineDataset(str(path)).to_table().column("line").to_pylist() == [
        "one",
        "two",
    ]
    cn.io.write_file("memory://protocols/m.txt", "m\n")
    assert cn.io.read_file("memory://protocols/m.txt") == b"m\n"
    assert check_protocol(f"{tmp_path}/odd::name") == ""  # "::" in a local name: local
    assert check_protocol("/tmp/x") == "" and check_protocol("MEMORY://x") == "memory"


@pytest.fixture
def bucket_fs():
    """``bucket://``: a remote-like file system registered with fsspec as gcsfs registers
    ``gs://`` (an in-memory one: no network here; pyarrow knows gs:// itself, so a name it
    does not know keeps the test on fsspec, where gcsfs and s3fs plug in)."""

    class Bucket(MemoryFileSystem):
        protocol = ("bucket",)
        store, pseudo_dirs = {}, [""]

    fsspec.register_implementation("bucket", Bucket, clobber=True)


def test_an_allowed_protocol_works_and_only_once_allowed(no_network, bucket_fs, monkeypatch):
    with pytest.raises(ProtocolNotAllowedError, match="the bucket:// protocol is not allowed"):
        cn.io.write_file("bucket://b/dir/a.csv", "x,y\n1,2\n")
    with pytest.raises(ProtocolNotAllowedError, match="the bucket:// protocol is not allowed"):
        cn.data.Dataset.from_files("bucket://b/dir/a.csv")
    monkeypatch.setenv("COLONNADE_ALLOWED_PROTOCOLS", " BUCKET:// , s3,gs")
    assert {"bucket", "gs", "s3", "memory", "file"} <= allowed_protocols()
    cn.io.write_file("bucket://b/dir/a.csv", "x,y\n1,2\n")
    assert gfile.listdir("bucket://b/dir") == ["a.csv"]
    table = cn.data.Dataset.from_files("bucket://b/dir/a.csv").to_table()
    assert table.column("y").to_pylist() == [2]
    with pytest.raises(ProtocolNotAllowedError, match="ftp://"):
        gfile.exists(FTP)  # still refused: only what is listed
    monkeypatch.setenv("COLONNADE_ALLOWED_PROTOCOLS", "*")
    assert check_protocol("anything://x") == "anything"
