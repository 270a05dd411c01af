"""rules/declarations.py: what a tree declares, read from its own text: dependencies by name,
sources (where packages come from: the person's say), and what ralph cannot read (said)."""

from __future__ import annotations

from ralph.rules.declarations import (
    Declaration,
    Include,
    is_project,
    looks_local,
    read_pyproject,
    read_requirements,
    read_setup_cfg,
)


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


def test_looks_local() -> None:
    assert all(map(looks_local, ["./a", "/abs", "x.whl", "a/b", "file:x", "n @ https://h"]))
    assert not any(map(looks_local, ["isodate", "attrs[x]>=1", "a==1; os_name=='nt'"]))


def test_pyproject_dependencies_groups_and_uv_sources() -> None:
    out = Declaration()
    data = {
        "project": {
            "dependencies": ["click"],
            "optional-dependencies": {"dev": ["black"]},
        },
        "dependency-groups": {"test": ["pytest", {"include-group": "lint"}], "lint": ["ruff"]},
        "tool": {
            "uv": {
                "sources": {"fix": {"path": "wheels/fix.whl"}, "far": {"path": "../x"}},
                "index-url": "https://idx",
                "managed": True,
            },
            "poetry": {"dependencies": {"x": "*"}},
        },
    }
    read_pyproject(data, "pyproject.toml", out)
    assert out.requirements == ["click", "black", "pytest", "ruff"]
    assert [s.paths for s in out.sources] == [("wheels/fix.whl",), (), ()]
    assert "[tool.uv] index-url = 'https://idx'" in [s.line for s in out.sources]
    assert not any("managed" in s.line for s in out.sources)  # not where packages come from
    assert any("Poetry" in u for u in out.unread)


def test_dynamic_dependencies_are_said() -> None:
    out = Declaration()
    read_pyproject({"project": {"dynamic": ["dependencies"]}}, "pyproject.toml", out)
    assert out.unread and "dynamic" in out.unread[0]


def test_setup_cfg_install_requires_and_extras() -> None:
    out = Declaration()
    text = (
        "[metadata]\nname = lib\n[options]\ninstall_requires =\n    isodate>=0.6\n"
        "    six\ntests_require =\n    hypothesis\n[options.extras_require]\ntest =\n    pytest\n"
    )
    read_setup_cfg(text, "setup.cfg", out)
    assert out.requirements == ["isodate>=0.6", "six", "hypothesis", "pytest"]
    out = Declaration()
    read_setup_cfg("[options]\ninstall_requires = file: reqs.in\n", "setup.cfg", out)
    assert out.requirements == [] and "does not follow" in out.unread[0]
    out = Declaration()
    read_setup_cfg("not an ini file [\n", "setup.cfg", out)
    assert out.unread


def test_the_project_naming_itself_is_not_installed() -> None:
    # `mylib[test]` in its own extras: the project itself, whose every extra is read already
    out = Declaration()
    data = {
        "project": {
            "name": "My_Lib",
            "dependencies": ["isodate"],
            "optional-dependencies": {"test": ["pytest"], "all": ["my-lib[test]"]},
        }
    }
    read_pyproject(data, "pyproject.toml", out)
    assert out.installable() == ["isodate", "pytest"]
    out = Declaration()
    text = "[metadata]\nname = tinylib\n[options.extras_require]\nall =\n    tinylib[x]\n    six\n"
    read_setup_cfg(text, "setup.cfg", out)
    assert out.installable() == ["six"]
