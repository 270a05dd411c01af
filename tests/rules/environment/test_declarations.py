"""rules/environment/declarations.py: what a tree declares in pyproject.toml and setup.cfg:
dependencies
by name, sources (where packages come from: the person's say), and what ralph cannot read."""

from __future__ import annotations

from ralph.rules.environment.declarations import (
    Declaration,
    looks_local,
    read_pyproject,
    read_setup_cfg,
)


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
