"""checks/failure.py: what a failed command shows, stderr included and room paths relative."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.failure import OUTPUT_TAIL_LINES, failure, output_tail, relative


def test_both_streams_are_shown_and_stderr_is_never_crowded_out(tmp_path: Path) -> None:
    stdout = "".join(f"line{i}\n" for i in range(100))
    said = failure(stdout, "Traceback\nValueError: bad date\n", tmp_path, None)
    lines = said.tail.splitlines()
    assert lines[:OUTPUT_TAIL_LINES] == [f"line{i}" for i in range(80, 100)]
    assert lines[OUTPUT_TAIL_LINES:] == ["(stderr)", "Traceback", "ValueError: bad date"]
    assert said.error == "ValueError: bad date" and said.not_installed is None
    assert failure("only out\n", "", tmp_path, None).tail == "only out"
    assert failure("", "only err\n", tmp_path, None).tail == "only err"
    assert output_tail("x" * 400).endswith(" …")


def test_the_room_s_path_reads_project_relative(tmp_path: Path) -> None:
    room = tmp_path / "rooms" / "a"
    text = f"not ok 1 - {room}/test/a.test.js\nrootdir: {room}\nsee {room}.person/x\n"
    assert relative(text, room) == f"not ok 1 - test/a.test.js\nrootdir: \nsee {room}.person/x\n"
    assert relative(text, None) == text
    said = failure(f"Error: Cannot find module '{room}/lib'\n", "", room, room)
    assert said.error == "Error: Cannot find module 'lib'"


def test_a_missing_package_the_tree_declares_is_named_with_its_file(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"devDependencies": {"timestring": "^7"}}')
    said = failure("# Error: Cannot find module 'timestring'\n", "", tmp_path, tmp_path)
    assert said.not_installed == (
        "`timestring` is declared by package.json but not installed in the checks' environment"
    )
    # the controls: a package no file declares; a declaring file that is a link out
    assert (
        failure("Error: Cannot find module 'left-pad'\n", "", tmp_path, None).not_installed is None
    )
    outside = tmp_path.parent / "outside-requirements.txt"
    outside.write_text("isodate\n")
    (tmp_path / "requirements.txt").symlink_to(outside)
    lacking = "ModuleNotFoundError: No module named 'isodate'\n"
    assert failure(lacking, "", tmp_path, None).not_installed is None
