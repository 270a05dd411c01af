"""store/disk/reader.py, the one reader of files an agent could have touched: each refusal beside
the honest read it must leave alone, with openat (POSIX) and without (Windows' checked names)."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

from ralph.errors import StateError, UnsafePath
from ralph.store.disk import confined, reader

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="links, pipes and devices")


@pytest.fixture(params=["openat", "checked names"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "checked names":
        monkeypatch.setattr(confined, "_AT", False)
    return str(request.param)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".ralph").mkdir(parents=True)
    (tmp_path / "secret").write_text("the person's credentials\n")
    return project


def test_a_regular_file_is_read_whole(mode: str, root: Path) -> None:
    f = root / ".ralph" / "worklog.jsonl"
    f.write_bytes(b"one\ntwo\xff\n")
    assert reader.read_bytes(f, limit=100) == b"one\ntwo\xff\n"
    assert reader.read_text(f, limit=100) == "one\ntwo\ufffd\n"
    assert reader.read_text(root / ".ralph" / "none", limit=100) == ""
    with pytest.raises(FileNotFoundError):
        reader.read_bytes(root / ".ralph" / "none", limit=100)


def test_a_link_is_refused_at_any_name(mode: str, root: Path) -> None:
    state = root / ".ralph"
    (state / "history").symlink_to(root.parent)
    (state / "record").symlink_to(root.parent / "secret")
    for path in (state / "record", state / "history" / "secret"):
        with pytest.raises(UnsafePath, match="link"):
            reader.read_bytes(path, limit=1000)
        with pytest.raises(StateError, match="link"):
            reader.load_json(path, "a record")


def test_follow_takes_a_link_that_ends_inside_the_project_and_no_other(
    mode: str, root: Path
) -> None:
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("mine\n")
    (root / "specs").mkdir()
    (root / "specs" / "a.spec.md").symlink_to(Path("..") / "notes" / "a.md")
    (root / "specs" / "b.spec.md").symlink_to(root.parent / "secret")
    spec = root / "specs" / "a.spec.md"
    assert reader.read_text(spec, limit=100, root=root, follow=True) == "mine\n"
    with pytest.raises(UnsafePath, match="link"):  # without follow, even inside: refused
        reader.read_text(spec, limit=100, root=root)
    with pytest.raises(UnsafePath, match="outside"):
        reader.read_text(root / "specs" / "b.spec.md", limit=100, root=root, follow=True)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(mode: str, root: Path) -> None:
    fifo = root / ".ralph" / "worklog.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            reader.read_bytes(fifo, limit=100)
            outcome.append(None)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=60)  # generous: the refusal takes microseconds; a hang never ends
    if worker.is_alive():  # unblock the reader so the test process can end, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a named pipe blocked")
    assert isinstance(outcome[0], UnsafePath)
    assert "named pipe" in outcome[0].message


def test_a_named_pipe_is_refused_by_every_entry(mode: str, root: Path) -> None:
    fifo = root / ".ralph" / "state.json"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePath, match="named pipe"):
        reader.read_text(fifo, limit=100, follow=True)
    with pytest.raises(StateError, match="named pipe"):
        reader.load_json(fifo, ".ralph/state.json")


def test_a_device_is_refused_and_never_read(mode: str) -> None:
    with pytest.raises(UnsafePath, match="device"):
        reader.read_bytes(Path("/dev/zero"), limit=10, root=Path("/dev"))


def test_a_device_node_in_the_project_is_refused(mode: str, root: Path) -> None:
    node = root / ".ralph" / "run.json"
    try:
        os.mknod(node, 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 5))  # /dev/zero's
    except (PermissionError, AttributeError):
        pytest.skip("creating a device node needs root")
    with pytest.raises(UnsafePath, match="device"):
        reader.read_bytes(node, limit=10)


def test_a_folder_or_a_socket_is_refused(mode: str, root: Path) -> None:
    (root / ".ralph" / "history.log").mkdir()
    with pytest.raises(UnsafePath, match="folder"):
        reader.read_bytes(root / ".ralph" / "history.log", limit=10)
    import socket

    name = root / ".ralph" / "s"
    if len(os.fsencode(name)) > 100:
        pytest.skip("socket path too long here")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(name))
        with pytest.raises(UnsafePath, match="socket"):
            reader.read_bytes(name, limit=10)
    finally:
        sock.close()


def test_a_huge_file_costs_only_the_bound(mode: str, root: Path) -> None:
    huge = root / ".ralph" / "worklog.jsonl"
    with huge.open("wb") as f:  # sparse: 10 GB apparent, nothing on disk
        f.truncate(10 * 1024**3)
    with pytest.raises(reader.TooLarge, match="larger than"):
        reader.read_bytes(huge, limit=1000)
    with pytest.raises(StateError, match="larger than"):
        reader.load_json(huge, "a record", limit=1000)
    head = reader.read(huge, limit=1000, truncate=True)
    assert head.truncated and len(head.data) == 1000
    exact = root / ".ralph" / "exact"
    exact.write_bytes(b"x" * 1000)  # the control: exactly the bound is read whole
    assert reader.read(exact, limit=1000) == reader.Read(b"x" * 1000, truncated=False)


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_json_refuses_nan_and_infinity(root: Path, word: str) -> None:
    f = root / ".ralph" / "state.json"
    f.write_text('{"done_count": ' + word + "}")
    with pytest.raises(StateError, match="not valid JSON") as caught:
        reader.load_json(f, ".ralph/state.json")
    assert "\n" not in caught.value.message
    with pytest.raises(ValueError, match="not JSON"):
        reader.loads('{"x": ' + word + "}")


def test_json_refuses_deep_nesting_in_one_line(root: Path) -> None:
    f = root / ".ralph" / "state.json"
    for depth in (reader.JSON_DEPTH + 1, 100_000):
        f.write_text("[" * depth + "]" * depth)
        with pytest.raises(StateError, match="nested deeper") as caught:
            reader.load_json(f, ".ralph/state.json")
        assert "\n" not in caught.value.message


def test_json_honest_values_pass(root: Path) -> None:
    f = root / ".ralph" / "state.json"
    deep = "[" * (reader.JSON_DEPTH - 1) + "]" * (reader.JSON_DEPTH - 1)  # the dict is one more
    value = {"a": [1, 2.5, "x[[[[{{{", None, True], "deep": json.loads(deep), "n": -1e300}
    f.write_text(json.dumps(value))
    assert reader.load_json(f, "state") == value
    assert reader.loads('"[[[[" ') == "[[[["
    at_bound = "[" * reader.JSON_DEPTH + "]" * reader.JSON_DEPTH
    assert reader.loads(at_bound) == json.loads(at_bound)
    assert reader.load_json(root / ".ralph" / "none.json", "state") is None
    wide = [[i] for i in range(1000)]  # many brackets, little depth
    assert reader.loads(json.dumps(wide)) == wide


def test_not_json_is_one_line(root: Path) -> None:
    f = root / ".ralph" / "state.json"
    f.write_bytes(b'{"a": \xff')
    with pytest.raises(StateError, match="not valid JSON"):
        reader.load_json(f, "state")


def test_tail_keeps_the_end_of_a_log(root: Path) -> None:
    log = root / ".ralph" / "log"
    log.write_bytes(b"a" * 100 + b"THE END")
    end = reader.read(log, limit=7, tail=True)
    assert end == reader.Read(b"THE END", truncated=True)
    assert reader.read(log, limit=1000, tail=True) == reader.Read(b"a" * 100 + b"THE END")
