"""The sandbox's command lines (process/sandbox.py) and `sandbox:` in ralph.yaml: pure, no tool
needs to be installed. What the sandboxes really stop is tested in test_sandbox_run.py."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from ralph.errors import ConfigError
from ralph.process.allowlist import AllowList
from ralph.process.sandbox import Sandbox, container_name, srt_settings, wrap
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


def test_bwrap_binds_the_project_the_cli_folders_and_a_private_tmp_read_only_elsewhere() -> None:
    argv, env = wrap(
        box(), ("/usr/bin/claude", "-p"), ROOT / "sub", {"A": "1"}, "tok", frozenset({"A"})
    )
    assert argv[0] == "/usr/bin/bwrap"
    assert argv[-3:] == ("--", "/usr/bin/claude", "-p")
    # the whole filesystem read-only first, then what may be written
    assert pairs(argv, "--ro-bind")[0] == ("/", "/")
    binds = pairs(argv, "--bind")
    assert (str(ROOT), str(ROOT)) in binds
    assert (str(SCRATCH / "tmp"), str(SCRATCH / "tmp")) in binds
    assert ("/home/u/.claude", "/home/u/.claude") in binds
    assert argv[argv.index("--chdir") + 1] == str(ROOT / "sub")
    assert env == {
        "A": "1",
        "TMPDIR": str(SCRATCH / "tmp"),
        "RALPH_SANDBOX": "bwrap",
        "IS_SANDBOX": "1",  # Claude Code run as root accepts bypassed prompts inside it
    }


def test_bwrap_dies_with_ralph_and_keeps_its_processes_in_their_own_pid_namespace() -> None:
    argv, _ = wrap(box(), ("/bin/true",), ROOT, {}, "tok")
    for flag in ("--die-with-parent", "--unshare-pid", "--new-session", "--unshare-user"):
        assert flag in argv
    assert ("--cap-drop", "ALL") in itertools.pairwise(argv)  # root inside holds no capability


def test_bwrap_hides_secrets_after_the_writable_binds_so_a_secret_inside_one_stays_hidden() -> None:
    argv, _ = wrap(box(deny_read=(Path("/home/u/.claude/secrets"),)), ("/bin/true",), ROOT, {}, "")
    hide = argv.index("/home/u/.claude/secrets")
    assert argv[hide - 1] == "--tmpfs"
    assert hide > argv.index("/home/u/.claude")
    assert ("/dev/null", "/home/u/.netrc") in pairs(argv, "--ro-bind")


def test_srt_runs_the_program_through_its_settings_with_this_runs_private_tmp() -> None:
    argv, env = wrap(
        box("srt"), ("/usr/bin/claude", "-p"), ROOT, {"A": "1"}, "tok", frozenset({"A"})
    )
    settings = str(SCRATCH / "srt-settings.json")
    assert argv[:4] == ("/usr/bin/srt", "--settings", settings, "--")
    assert argv[4:] == ("/usr/bin/env", f"TMPDIR={SCRATCH / 'tmp'}", "/usr/bin/claude", "-p")
    # srt itself makes its proxy sockets in a short folder of the run's own
    assert env["TMPDIR"] == str(SCRATCH)
    assert env["A"] == "1"


def test_srt_settings_allow_writes_only_where_the_sandbox_says_and_list_the_hosts() -> None:
    settings = srt_settings(box("srt"))
    fs = settings["filesystem"]
    assert fs["allowWrite"] == [
        str(ROOT),
        str(SCRATCH / "tmp"),
        "/home/u/.claude",
        "/home/u/.claude.json",
    ]
    assert fs["denyRead"] == ["/home/u/.ssh", "/home/u/.netrc"]
    # what may not be read may not be written either (a store under a writable folder)
    assert fs["denyWrite"] == [str(SCRATCH / "srt-settings.json"), *fs["denyRead"]]
    assert settings["network"] == {"allowedDomains": ["api.anthropic.com"], "deniedDomains": []}


@pytest.mark.parametrize("host", ["127.0.0.1:8080", "localhost:3000", "[::1]:80", "localhost"])
def test_an_allowed_loopback_host_goes_through_the_proxy_not_the_sandboxs_own_loopback(
    host: str,
) -> None:
    argv, _ = wrap(box("srt", hosts=(host,)), ("/bin/true",), ROOT, {}, "")
    assert argv[4:9] == ("/usr/bin/env", "-u", "NO_PROXY", "-u", "no_proxy")


def test_without_a_loopback_host_no_proxy_is_left_as_srt_sets_it() -> None:
    argv, _ = wrap(box("srt", hosts=("api.openai.com:443",)), ("/bin/true",), ROOT, {}, "")
    assert "NO_PROXY" not in argv


def test_docker_passes_variables_by_name_so_no_key_is_on_the_command_line() -> None:
    sandbox = box("docker", image="ralph-agents:1", uid=1000, gid=1000)
    env = {"ANTHROPIC_API_KEY": "sk-ant-secret", "PATH": "/host/bin", "HOME": "/home/u"}
    argv, _ = wrap(
        sandbox,
        ("/opt/node/bin/claude", "-p"),
        ROOT,
        env,
        "abc123",
        frozenset({"ANTHROPIC_API_KEY"}),
    )
    assert "sk-ant-secret" not in " ".join(argv)
    assert ("--env", "ANTHROPIC_API_KEY") in itertools.pairwise(argv)
    assert "PATH" not in argv  # the image's own PATH finds the CLI
    assert argv[-3:] == ("ralph-agents:1", "claude", "-p")
    assert argv[argv.index("--name") + 1] == container_name("abc123")
    assert argv[argv.index("--user") + 1] == "1000:1000"
    # root in the container holds no capability, gains none, and writes only what is mounted
    assert ("--cap-drop", "ALL") in itertools.pairwise(argv)
    assert ("--security-opt", "no-new-privileges") in itertools.pairwise(argv)
    assert "--read-only" in argv
    assert f"{ROOT}:{ROOT}" in argv
    assert "/home/u/.ssh" not in " ".join(argv)  # only what is mounted is there at all


def test_docker_hides_a_store_that_a_mounted_folder_holds() -> None:
    # ralph's private stores under a state folder the person made writable: a tmpfs over them
    state = Path("/home/u/.local/state")
    stores = state / "ralph"
    sandbox = box("docker", image="i", writable=(state,), deny_read=(stores, Path("/home/u/.ssh")))
    argv, _ = wrap(sandbox, ("claude",), ROOT, {}, "abc")
    assert ("--tmpfs", str(stores)) in itertools.pairwise(argv)
    assert "/home/u/.ssh" not in " ".join(argv)  # not mounted at all: nothing to hide


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


def test_docker_without_an_image_is_refused() -> None:
    with pytest.raises(ValueError, match="image"):
        wrap(box("docker"), ("/bin/true",), ROOT, {}, "t")


def test_describe_says_whether_the_network_is_filtered() -> None:
    assert "network only to api.anthropic.com" in box("srt").describe()
    assert "network not filtered" in box("bwrap").describe()


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
    from ralph.process.sandbox import _bwrap, _room_settings, environments_of

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


def test_bwrap_the_sealed_run_writes_its_room_only() -> None:
    sandbox = box(deny_read=(STORE,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM, sealed=True)
    binds = pairs(argv, "--bind")
    assert binds == [(str(ROOM), str(ROOM))]
    ro = pairs(argv, "--ro-bind")
    assert (str(ROOT), str(ROOT)) in ro and ("/home/u/.claude", "/home/u/.claude") in ro
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    # its TMPDIR is its own and empty; the host's /tmp stays, read-only (an interpreter or a
    # checkout may live there), so nothing written there outlives the run
    assert "/tmp" not in tmpfs and str(SCRATCH / "tmp") in tmpfs
    assert ("/", "/") in ro and "/tmp" not in [b for b, _ in binds]
    normal, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM)
    assert (str(ROOT), str(ROOT)) in pairs(normal, "--bind")  # a check's run writes the tree


def test_docker_the_sealed_run_mounts_the_tree_read_only() -> None:
    sandbox = box("docker", image="img", deny_read=(STORE,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM, sealed=True)
    volumes = [argv[i + 1] for i, a in enumerate(argv) if a == "--volume"]
    assert f"{ROOT}:{ROOT}:ro" in volumes and f"{ROOM}:{ROOM}" in volumes
    assert not [v for v in volumes if v.startswith(str(SCRATCH))]
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    assert "/tmp" in tmpfs and str(SCRATCH / "tmp") in tmpfs


def test_srt_the_sealed_run_writes_its_room_and_a_tmp_beside_it(tmp_path: Path) -> None:
    store = tmp_path / "state"
    room = store / "rooms" / "main.sealed" / "tree"
    room.mkdir(parents=True)
    (room.parent / "manifest.json").write_text("{}")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    sandbox = box("srt", scratch=scratch, deny_read=(store,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), room, {}, "tok", room=room, sealed=True)
    settings = json.loads(Path(argv[argv.index("--settings") + 1]).read_text())["filesystem"]
    assert settings["allowWrite"] == [str(room), str(room.parent / "tmp")]
    assert str(room.parent / "manifest.json") in settings["denyRead"]
    assert f"TMPDIR={room.parent / 'tmp'}" in argv


def test_every_profile_is_a_backend_registered_through_the_hook() -> None:
    from typing import get_args, get_type_hints

    from ralph.plugins.manager import plugins
    from ralph.process import sandbox
    from ralph.run.settings import RunSettings
    from ralph.store.person.config import SandboxChoice

    names = list(sandbox.backends())
    assert names == [b.name for b in sandbox.ralph_sandbox_backends()] == ["srt", "bwrap", "docker"]
    hooked = plugins().manager.hook.ralph_sandbox_backends.get_hookimpls()
    assert sandbox.__name__ in {i.plugin_name for i in hooked}
    # the options' types name exactly the registered backends (and off, auto)
    assert list(get_args(sandbox.Profile)) == names
    assert list(get_args(SandboxChoice)) == ["off", "auto", *names]
    field = get_type_hints(RunSettings)["sandbox"]
    assert list(get_args(field)) == ["off", "auto", *names]
