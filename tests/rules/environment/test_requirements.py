"""rules/environment/requirements.py: a requirements file read as ralph reads it: names, sources,
includes, harmless options, and what it cannot read (said)."""

from __future__ import annotations

from ralph.rules.environment.declarations import Declaration
from ralph.rules.environment.requirements import Include, is_project, read_requirements


def test_names_are_requirements_and_paths_are_sources() -> None:
    out = Declaration()
    text = (
        "isodate>=0.6  # a comment\n"
        "attrs[tests] ; python_version>'3'\n"
        "./vendor/x-1-py3-none-any.whl\n"
        "pkg @ file:./pkg\n"
        "web @ https://host/web-1.whl\n"
        "git+https://host/repo.git\n"
        "long \\\n  >=1\n"
    )
    assert read_requirements(text, "requirements.txt", out) == []
    assert out.requirements == ["isodate>=0.6", "attrs[tests] ; python_version>'3'", "long   >=1"]
    assert [s.line for s in out.sources] == [
        "./vendor/x-1-py3-none-any.whl",
        "pkg @ file:./pkg",
        "web @ https://host/web-1.whl",
        "git+https://host/repo.git",
    ]
    assert out.sources[0].paths == ("vendor/x-1-py3-none-any.whl",)
    assert out.sources[1].paths == ("pkg",)
    assert out.sources[2].paths == ()


def test_index_and_find_links_lines_are_sources_and_includes_are_followed() -> None:
    out = Declaration()
    text = "-r dev.txt\n--constraint=c.txt\n-f ./wheels\n-i https://idx\n--no-index\n--pre\n"
    includes = read_requirements(text, "reqs/base.txt", out)
    assert includes == [Include("reqs/dev.txt", False), Include("reqs/c.txt", True)]
    assert [(s.line, s.option, s.paths) for s in out.sources] == [
        ("-f ./wheels", "find-links", ("reqs/wheels",)),
        ("-i https://idx", "index-url", ()),
        ("--no-index", "no-index", ()),
    ]
    assert out.options == ["--pre"]


def test_an_include_outside_the_tree_and_an_unknown_option_are_said() -> None:
    out = Declaration()
    assert read_requirements("-r ../../etc/x.txt\n--weird\n", "requirements.txt", out) == []
    assert len(out.unread) == 2 and "outside the tree" in out.unread[0]


def test_a_constraint_file_keeps_its_lines_as_constraints() -> None:
    out = Declaration()
    read_requirements("isodate<1\nfix @ file:./w.whl\n", "c.txt", out, constraint=True)
    assert out.constraints == ["isodate<1"] and out.requirements == []
    assert out.sources[0].option == "constraint" and out.sources[0].paths == ("w.whl",)


def test_the_project_itself_is_no_source() -> None:
    assert is_project(".", "") and is_project("./", "") and is_project(".[dev]", "")
    assert is_project("..", "requirements")
    assert not is_project("..", "") and not is_project("./sub", "")
    out = Declaration()
    read_requirements("-e .[dev]\n.\n", "requirements.txt", out)
    assert out.sources == [] and out.requirements == []
