"""The sandbox's command lines (process/sandbox.py, by the registered backends; each one's own
in tests/process/backends/) and `sandbox:` in ralph.yaml: pure, no tool
needs to be installed. What the sandboxes really stop is tested in test_sandbox_run.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.errors import ConfigError
from ralph.process.allowlist import AllowList
from ralph.process.backends.srt import srt_settings
from ralph.process.box import Sandbox
from ralph.process.sandbox import wrap
from ralph.store.person.config import parse_config

ROOT = Path("/work/proj")
SCRATCH = Path("/tmp/ralph-sandbox-x")


def box(profile: str = "bwrap", **kw: object) -> Sandbox:
    fields: dict[str, object] = {
        "profile": profile,
        "tool": f"/usr/bin/{profile}",
        "project": ROOT,
        "scratch": SCRATCH,
        "writable": (Path("/home/u/.claude"), Path("/home/u/.claude.json")),
        "deny_read": (Path("/home/u/.ssh"),),
        "deny_files": (Path("/home/u/.netrc"),),
        "hosts": ("api.anthropic.com",),
        **kw,
    }
    return Sandbox(**fields)  # type: ignore[arg-type]


def pairs(argv: tuple[str, ...], flag: str) -> list[tuple[str, str]]:
    """Every (a, b) that follows `flag` in argv (bwrap's --bind A B and the like)."""
    return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == flag]


def test_a_sandboxed_process_gets_the_basic_variables_its_own_and_those_named_only() -> None:
    env = {
        "PATH": "/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TERM": "xterm",
        "RALPH_SPEC": "a",
        "AWS_SECRET_ACCESS_KEY": "s",
        "GITHUB_TOKEN": "g",
        "MINE": "m",
        "DATABASE_URL": "postgres://u:p@h/d",
        "ANTHROPIC_API_KEY": "k",
    }
    env |= {"RALPH_WEBHOOK_URL": "https://hooks.example/T0/B0/x", "RALPH_OTHER": "o"}
    allow = AllowList(frozenset({"MINE"}))
    passes = frozenset({"ANTHROPIC_API_KEY"})
    _, got = wrap(box(), ("/bin/true",), ROOT, env, "t", passes, allow=allow)
    assert {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "DATABASE_URL"}.isdisjoint(got)
    assert {"RALPH_WEBHOOK_URL", "RALPH_OTHER"}.isdisjoint(got)  # no RALPH_* wildcard
    for name in ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "RALPH_SPEC", "MINE"):
        assert got[name] == env[name]
    assert got["ANTHROPIC_API_KEY"] == "k"


@pytest.mark.parametrize(
    ("text", "profile"),
    [
        ("sandbox: srt", "srt"),
        ("sandbox: off", "off"),  # YAML reads off as false
        ("sandbox: true", "auto"),
        ("sandbox: {profile: bwrap, deny_read: [~/secrets]}", "bwrap"),
        ("max_iterations: 3", "off"),
    ],
)
def test_sandbox_in_ralph_yaml(text: str, profile: str) -> None:
    assert parse_config(text).sandbox.profile == profile


def test_an_unknown_profile_is_one_line_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("sandbox: chroot")
    assert caught.value.message.startswith("ralph.yaml: sandbox.profile:")


def test_an_empty_host_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"sandbox\.allow_hosts"):
        parse_config("sandbox: {profile: srt, allow_hosts: ['']}")


def test_what_ralphs_own_git_would_run_stays_read_only_in_every_profile() -> None:
    hooks = ROOT / ".git" / "hooks"
    argv, _ = wrap(box(read_only=(hooks,)), ("/bin/true",), ROOT, {}, "")
    assert (str(hooks), str(hooks)) in pairs(argv, "--ro-bind")
    assert argv.index(str(hooks)) > argv.index(str(ROOT))  # after the project's writable bind
    assert str(hooks) in srt_settings(box("srt", read_only=(hooks,)))["filesystem"]["denyWrite"]
    docker = box("docker", image="i", read_only=(hooks,))
    argv, _ = wrap(docker, ("/bin/true",), ROOT, {}, "")
    assert f"{hooks}:{hooks}:ro" in argv


def test_a_room_shows_the_environments_it_links_to_and_nothing_else_of_the_store(
    tmp_path: Path,
) -> None:
    from ralph.process.backends.bwrap import _bwrap
    from ralph.process.backends.srt import _room_settings
    from ralph.process.box import environments_of

    store = tmp_path / "store"
    room = store / "rooms" / "main" / "tree"
    copy = store / "envs" / "start" / ".venv"
    (copy / "bin").mkdir(parents=True)
    (room / ".venv").mkdir(parents=True)
    (room / ".venv" / "bin").symlink_to(copy / "bin")
    (store / "snapshot.json").write_text("{}")
    (store / "rooms" / "main.person").mkdir()
    assert environments_of(room) == [store / "envs"]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    srt = box("srt", deny_read=(store,), scratch=scratch)
    fs = json.loads(_room_settings(srt, room).read_text())["filesystem"]
    hidden = {str(store / "snapshot.json"), str(store / "rooms" / "main.person")}
    assert hidden <= set(fs["denyRead"]) and str(store / "envs") not in fs["denyRead"]
    assert str(store / "envs") not in fs["allowWrite"] and str(room) in fs["allowWrite"]
    argv = _bwrap(box("bwrap", deny_read=(store,)), ("true",), room, room)
    assert (str(store / "envs"), str(store / "envs")) in pairs(argv, "--ro-bind")


STORE = Path("/home/u/.local/state/ralph")


ROOM = STORE / "projects" / "proj-1" / "rooms" / "main.sealed" / "tree"


def test_every_profile_is_a_backend_registered_through_the_hook() -> None:
    from typing import get_args, get_type_hints

    from ralph.plugins.manager import plugins
    from ralph.process import box as box_module
    from ralph.process import sandbox
    from ralph.run.settings import RunSettings
    from ralph.store.person.config import SandboxChoice

    names = list(sandbox.backends())
    offered = [b.name for m in sandbox.BUILTIN for b in m.ralph_sandbox_backends()]
    assert names == offered == ["srt", "bwrap", "docker"]
    hooked = plugins().manager.hook.ralph_sandbox_backends.get_hookimpls()
    assert {m.__name__ for m in sandbox.BUILTIN} <= {i.plugin_name for i in hooked}
    # the options' types name exactly the registered backends (and off, auto)
    assert list(get_args(box_module.Profile)) == names
    assert list(get_args(SandboxChoice)) == ["off", "auto", *names]
    field = get_type_hints(RunSettings)["sandbox"]
    assert list(get_args(field)) == ["off", "auto", *names]
