"""The sandbox of one `ralph run`: `sandbox:` in ralph.yaml (or `--sandbox`) and the pool's CLIs
make the rules; the profile is probed once, and a sandbox that cannot start stops the run before
any agent does (SandboxError, exit 1). Nothing here falls back to running unsandboxed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.footprint import config_paths, endpoint_hosts
from ralph.agents.member import Member
from ralph.errors import SandboxError, docs_page
from ralph.process.box import Profile, Sandbox
from ralph.process.containment import prepare, probe, scratch_folder
from ralph.process.sandbox import backends
from ralph.store.disk.private import ensure_store, stores_root
from ralph.store.person.config import SandboxConfig

# Read by nobody but their owner's own tools: hidden from every agent unless the user allows.
SECRETS = (
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.kube",
    "~/.docker",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.password-store",
    "~/.netrc",
    "~/.git-credentials",
    "~/.pypirc",
)
# auto: only the profiles that enforce every rule of `sandbox:`, the network's included.
AUTO_ORDER: tuple[Profile, ...] = ("srt",)
NAMESPACE_HINT = (
    "user namespaces are off or restricted here: allow them "
    "(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 "
    "kernel.apparmor_restrict_unprivileged_userns=0), or, inside a container, "
    "run it with --privileged or a seccomp profile that allows unshare"
)


def start_sandbox(
    root: Path, choice: str | None, config: SandboxConfig, members: Sequence[Member]
) -> Sandbox | None:
    """The sandbox this run starts every process in, probed; None when `sandbox:` is off."""
    wanted = choice or config.profile
    if wanted == "off":
        return None
    env = dict(os.environ)
    profiles: tuple[Profile, ...] = AUTO_ORDER if wanted == "auto" else (_profile(wanted),)
    refusals: list[str] = []
    for profile in profiles:
        box = _build(root, profile, config, members, env)
        if isinstance(box, str):
            refusals.append(box)
            continue
        reason = _probe(box, env)
        if reason is None:
            return box
        refusals.append(reason)
    hint = " ".join(dict.fromkeys(_hint(p, r) for p, r in zip(profiles, refusals, strict=True)))
    raise SandboxError(f"sandbox {wanted} cannot start: {'; '.join(refusals)}", hint)


def _profile(name: str) -> Profile:
    known = backends()
    if name in known:
        return cast("Profile", name)
    raise SandboxError(f"--sandbox {name}: unknown profile", f"use off, auto, {', '.join(known)}")


def _hint(profile: Profile, reason: str) -> str:
    lowered = reason.lower()
    if "not found" in lowered:
        return (
            f"{backends()[profile].install}; or run without a sandbox: --sandbox off "
            f"({docs_page('how-to/sandbox.md')})"
        )
    if any(w in lowered for w in ("namespace", "uid map", "operation not permitted", "setting up")):
        return NAMESPACE_HINT
    if profile == "docker":
        return "start the Docker daemon and build or pull the image named in sandbox.image"
    return f"run `ralph doctor` for details; {backends()[profile].install}"


def _build(
    root: Path,
    profile: Profile,
    config: SandboxConfig,
    members: Sequence[Member],
    env: Mapping[str, str],
) -> Sandbox | str:
    """The sandbox for this machine, or why it cannot be (the profile's tool is missing)."""
    tool = shutil.which(backends()[profile].tool, path=env.get("PATH"))
    if tool is None:
        return f"{backends()[profile].tool} not found on PATH"
    if profile == "docker" and not config.image:
        raise SandboxError(
            "sandbox docker: no image",
            "name one in ralph.yaml: sandbox: {profile: docker, image: ...}",
        )
    if profile == "srt" and Path("/dev") in root.parents:
        # srt rebuilds /dev inside its sandbox and drops every rule under it.
        raise SandboxError(
            f"sandbox srt cannot hold a project under /dev ({root})",
            "move the project (or its temporary copy) elsewhere, or use sandbox: bwrap",
        )
    home = Path.home()
    writable, hosts = _pool_rules(members, home, env)
    writable += [_existing(root, entry, "allow_write") for entry in config.allow_write]
    denied = [_expand(root, entry) for entry in (*SECRETS, *config.deny_read)]
    # ralph's private stores (store/disk/private.py), every project's: what ralph judges with is
    # neither readable nor writable inside. Created now, so there is a folder to hide.
    ensure_store(root)
    denied.append(stores_root())
    for path in denied:
        if path == root or path in root.parents:
            raise SandboxError(
                f"sandbox.deny_read: {path} holds the project", "name a folder outside the project"
            )
    scratch = scratch_folder()
    return Sandbox(
        profile=profile,
        tool=str(Path(tool).absolute()),
        project=root,
        scratch=scratch,
        writable=tuple(dict.fromkeys(writable)),
        deny_read=tuple(p for p in dict.fromkeys(denied) if p.is_dir()),
        deny_files=tuple(p for p in dict.fromkeys(denied) if p.is_file()),
        hosts=tuple(dict.fromkeys([*hosts, *config.allow_hosts])),
        read_only=tuple(
            p for p in (root / ".git" / "config", root / ".git" / "hooks") if p.exists()
        ),
        image=config.image,
        uid=os.getuid() if hasattr(os, "getuid") else 0,
        gid=os.getgid() if hasattr(os, "getgid") else 0,
    )


def _pool_rules(
    members: Iterable[Member], home: Path, env: Mapping[str, str]
) -> tuple[list[Path], list[str]]:
    """The writable folders and the hosts of the pool's CLIs (their logins keep working)."""
    writable: list[Path] = []
    hosts: list[str] = []
    for member in members:
        agent = member.agent
        footprint = agent.footprint if isinstance(agent, BuiltinAgent) else None
        if footprint is None:
            continue
        agent_env = {**env, **agent.extra_env}
        hosts += [*footprint.hosts, *endpoint_hosts(footprint, agent_env)]
        folders = {home / f for f in footprint.folders}
        for path in config_paths(footprint, home, agent_env):
            if path in folders:
                # What the CLI would create on its first run; bwrap binds only what exists.
                path.mkdir(parents=True, exist_ok=True, mode=0o700)
            if path.exists():
                writable.append(path)
    return writable, hosts


def _expand(root: Path, entry: str) -> Path:
    return Path(os.path.normpath(root / Path(entry).expanduser()))


def _existing(root: Path, entry: str, key: str) -> Path:
    path = _expand(root, entry)
    if not path.exists():
        raise SandboxError(
            f"sandbox.{key}: {path} does not exist", "create it, or remove the entry"
        )
    return path


def _probe(box: Sandbox, env: Mapping[str, str]) -> str | None:
    try:
        prepare(box)
    except OSError as exc:
        reason: str | None = f"cannot prepare {box.scratch}: {exc.strerror or exc}"
    else:
        reason = probe(box, env)
    if reason is not None:
        shutil.rmtree(box.scratch, ignore_errors=True)
    return reason
