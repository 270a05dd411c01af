"""store/environments/installer.py: the installer runs confined like the agent (the run's sandbox,
its own
build folder, the person's cache writable, a time limit) and its error is one line."""

from __future__ import annotations

import threading
from pathlib import Path

from ralph.process.box import Sandbox
from ralph.process.launcher import Launcher
from ralph.process.request import Confinement, OutputCallback, ProcessRequest, ProcessResult
from ralph.store.environments.installer import BUILD_TIMEOUT, INPUT, Installer, said

UV_ERROR = """\
  \u00d7 No solution found when resolving dependencies:
  ╰─▶ Because calcfix was not found in the package registry and you require calcfix, we can
      conclude that your requirements are unsatisfiable.
"""


def test_uvs_error_is_one_line() -> None:
    assert said(UV_ERROR) == (
        "No solution found when resolving dependencies: Because calcfix was not found in the "
        "package registry and you require calcfix, we can conclude that your requirements are "
        "unsatisfiable."
    )
    assert said("warning: x\nerror: Failed to fetch\n") == "error: Failed to fetch"
    assert len(said("e" * 1000)) == 400


def test_npms_error_is_said_without_its_marks_or_its_log() -> None:
    text = (
        "npm error code E404\nnpm error 404 Not Found - GET http://127.0.0.1:9/x\n"
        "npm error A complete log of this run can be found in: /home/p/.npm/_logs/1.log\n"
    )
    assert said(text) == "code E404 404 Not Found - GET http://127.0.0.1:9/x"


def _run(
    tmp_path: Path, box: Sandbox | None, result: ProcessResult
) -> tuple[str | None, list[ProcessRequest]]:
    seen: list[ProcessRequest] = []

    def execute(
        request: ProcessRequest, _out: OutputCallback, _cancel: threading.Event | None
    ) -> ProcessResult:
        seen.append(request)
        return result

    target = tmp_path / "envs" / "abc"
    (target / INPUT).mkdir(parents=True, exist_ok=True)
    launcher = Launcher(Confinement(box), execute)
    why = Installer(
        "/bin/uv", target, {"UV_INDEX_URL": "u", "SECRET": "s"}, tmp_path / "c", launcher
    )(["pip", "install"])
    return why, seen


def _result(code: int | None, *, timed_out: bool = False, err: bytes = b"") -> ProcessResult:
    return ProcessResult(code, b"", err, 0, len(err), 0.0, 1.0, timed_out, False, False)


def test_it_runs_in_its_room_writing_it_and_the_cache_only(tmp_path: Path) -> None:
    box = Sandbox("bwrap", "/usr/bin/bwrap", tmp_path / "p", tmp_path / "scratch")
    why, seen = _run(tmp_path, box, _result(0))
    assert why is None
    request = seen[0]
    target = tmp_path / "envs" / "abc"
    assert request.cwd == target / INPUT and request.room == target and request.sealed
    assert request.writes == (tmp_path / "c",) and request.timeout == BUILD_TIMEOUT
    assert request.confined.box is box
    assert "UV_INDEX_URL" in request.passes and "SECRET" not in request.passes


def test_under_docker_it_runs_on_the_host_in_its_room(tmp_path: Path) -> None:
    box = Sandbox("docker", "/usr/bin/docker", tmp_path / "p", tmp_path / "scratch", image="i")
    _, seen = _run(tmp_path, box, _result(0))
    assert seen[0].confined.box is None and seen[0].room == tmp_path / "envs" / "abc"


def test_a_failure_and_a_time_out_are_said(tmp_path: Path) -> None:
    assert _run(tmp_path, None, _result(2, err=UV_ERROR.encode()))[0] == said(UV_ERROR)
    assert (
        _run(tmp_path, None, _result(None, timed_out=True))[0] == "uv did not finish within 900 s"
    )
    assert _run(tmp_path, None, _result(3))[0] == "uv exited 3"
