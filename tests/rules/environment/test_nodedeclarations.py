"""rules/environment/nodedeclarations.py: what a Node tree declares, from package.json and npm's
lockfile:
version ranges from the registry (no one's say), sources (where packages come from: the
person's say), and what ralph cannot read (said)."""

from __future__ import annotations

from typing import Any

import pytest

from ralph.rules.environment.nodedeclarations import (
    NodeDeclaration,
    is_registry_spec,
    read_lock,
    read_package,
    tree_path,
    under,
)

REG = "http://127.0.0.1:4873/"


@pytest.mark.parametrize(
    "spec",
    [
        "1.0.0",
        "^1.2.3",
        "~1",
        ">=1 <2",
        "1.x || 2",
        "*",
        "",
        "latest",
        "next",
        "npm:other@^1",
        "npm:other",
        "npm:@scope/pkg@^1",
        "npm:@scope/pkg",
    ],
)
def test_registry_ranges_and_tags_are_no_source(spec: str) -> None:
    assert is_registry_spec(spec)


@pytest.mark.parametrize(
    "spec",
    [
        "file:vendor/x.tgz",
        "file:../outside",
        "link:../x",
        "git+https://host/x.git",
        "git://host/x.git",
        "github:user/repo",
        "user/repo",
        "user/repo#v1",
        "https://host/x-1.0.0.tgz",
        "http://host/x.tgz",
        "workspace:*",
        "./local",
        "../up",
        "/abs/x",
        "~/x",
        "vendor.tgz",
        "npm:other@file:x.tgz",
        "npm:user/repo",
        "npm:@scope/pkg@github:u/r",
        "git@github.com:user/repo.git",
    ],
)
def test_paths_urls_and_repositories_are_sources(spec: str) -> None:
    assert not is_registry_spec(spec)


def test_a_url_is_under_the_registry_only_below_its_path() -> None:
    assert under(REG + "x/-/x-1.tgz", REG)
    assert under(REG + "x/-/x-1.tgz", REG.rstrip("/"))
    assert not under("http://127.0.0.1:4874/x/-/x-1.tgz", REG)
    assert not under("http://127.0.0.1:48730/x.tgz", REG.rstrip("/"))  # not a prefix of a port
    assert not under(REG + "x.tgz", "")  # the registry unknown: no URL is in it


def test_tree_paths_stay_in_the_tree() -> None:
    assert tree_path("file:vendor/x.tgz") == "vendor/x.tgz"
    assert tree_path("file:./a/../vendor/x.tgz") == "vendor/x.tgz"
    assert tree_path("link:pkgs/a") == "pkgs/a"
    assert tree_path("file:../x.tgz") is None
    assert tree_path("file:/abs/x.tgz") is None
    assert tree_path("file:") is None


def package(data: Any) -> NodeDeclaration:
    out = NodeDeclaration()
    read_package(data, out)
    return out


def test_package_json_keeps_what_npm_ci_reads_and_names_each_source() -> None:
    out = package(
        {
            "name": "calc",
            "version": "1.0.0",
            "scripts": {"test": "node --test"},
            "dependencies": {"a": "^1", "b": "file:vendor/b.tgz"},
            "devDependencies": {"c": "github:u/c", "d": "https://host/d.tgz"},
            "optionalDependencies": {"e": "2.x"},
            "peerDependencies": {"f": "link:../f"},
        }
    )
    assert "scripts" not in out.manifest  # never copied: not what ci reads
    assert out.manifest["dependencies"] == {"a": "^1", "b": "file:vendor/b.tgz"}
    assert out.dependencies
    assert [(s.file, s.line, s.paths) for s in out.sources] == [
        ("package.json", "dependencies b = file:vendor/b.tgz", ("vendor/b.tgz",)),
        ("package.json", "devDependencies c = github:u/c", ()),
        ("package.json", "devDependencies d = https://host/d.tgz", ()),
        ("package.json", "peerDependencies f = link:../f", ()),
    ]


def test_workspaces_are_a_source() -> None:
    out = package({"name": "m", "workspaces": ["packages/*"]})
    assert [s.line for s in out.sources] == ["workspaces = ['packages/*']"]
    assert not out.dependencies


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ([], "package.json: not a JSON object"),
        ({"dependencies": ["a"]}, "package.json: dependencies (not an object)"),
        ({"dependencies": {"a": 1}}, "package.json: dependencies a (not a string)"),
    ],
)
def test_what_package_json_does_not_say_plainly_is_said(data: Any, said: str) -> None:
    assert package(data).unread == [said]


def lock(packages: dict[str, Any], name: str = "package-lock.json") -> NodeDeclaration:
    out = NodeDeclaration()
    read_lock({"lockfileVersion": 3, "packages": {"": {"name": "x"}, **packages}}, name, REG, out)
    return out


def test_lock_entries_from_the_registry_are_no_source() -> None:
    out = lock(
        {
            "node_modules/a": {"version": "1.0.0", "resolved": REG + "a/-/a-1.0.0.tgz"},
            "node_modules/a/node_modules/b": {"version": "2.0.0", "resolved": REG + "b.tgz"},
            "node_modules/c": {"version": "1.0.0"},  # by name and version: the registry
            "node_modules/d": {"version": "1.0.0", "inBundle": True},
        }
    )
    assert out.sources == [] and out.unread == [] and out.lockfile == "package-lock.json"


def test_lock_entries_from_elsewhere_or_linked_are_sources() -> None:
    out = lock(
        {
            "node_modules/a": {"resolved": "http://127.0.0.1:9/a.tgz"},
            "node_modules/b": {"resolved": "file:vendor/b.tgz"},
            "node_modules/c": {"resolved": "git+ssh://git@host/c.git#abc"},
            "node_modules/d": {"resolved": "packages/d", "link": True},
            "node_modules/e": {"version": "file:vendor/e.tgz"},
        }
    )
    assert [(s.line, s.paths) for s in out.sources] == [
        ("node_modules/a resolved http://127.0.0.1:9/a.tgz", ()),
        ("node_modules/b resolved file:vendor/b.tgz", ("vendor/b.tgz",)),
        ("node_modules/c resolved git+ssh://git@host/c.git#abc", ()),
        ("node_modules/d linked to packages/d", ()),  # its code is the tree's own
        ("node_modules/e version file:vendor/e.tgz", ("vendor/e.tgz",)),
    ]


def test_a_lockfile_version_1_is_read_by_its_nested_dependencies() -> None:
    out = NodeDeclaration()
    data = {
        "lockfileVersion": 1,
        "dependencies": {
            "a": {
                "version": "1.0.0",
                "resolved": REG + "a.tgz",
                "dependencies": {"b": {"version": "1.0.0", "resolved": "http://else/b.tgz"}},
            }
        },
    }
    read_lock(data, "npm-shrinkwrap.json", REG, out)
    assert [s.describe() for s in out.sources] == [
        "npm-shrinkwrap.json: node_modules/a/node_modules/b resolved http://else/b.tgz"
    ]


def test_a_lockfile_ralph_cannot_read_is_said() -> None:
    out = NodeDeclaration()
    read_lock({"lockfileVersion": 3}, "package-lock.json", REG, out)
    assert out.unread == ["package-lock.json: no packages ralph can read (lockfileVersion 2 or 3)"]
    out = NodeDeclaration()
    read_lock([], "package-lock.json", REG, out)
    assert out.unread == ["package-lock.json: not a JSON object"]


def test_the_registry_unknown_every_fetched_entry_is_a_source() -> None:
    out = NodeDeclaration()
    read_lock({"packages": {"node_modules/a": {"resolved": REG + "a.tgz"}}}, "l.json", "", out)
    assert [s.line for s in out.sources] == [f"node_modules/a resolved {REG}a.tgz"]


def test_the_canonical_form_changes_with_what_ci_reads_only() -> None:
    a = package({"name": "x", "dependencies": {"a": "^1"}, "scripts": {"t": "1"}})
    b = package({"name": "x", "dependencies": {"a": "^1"}, "scripts": {"t": "2"}})
    c = package({"name": "x", "dependencies": {"a": "^2"}})
    assert a.canonical() == b.canonical() != c.canonical()
