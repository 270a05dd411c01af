"""Node is served as Python is, through the real CLI (store/environments/nodebuild.py): an agent
that adds a
dependency (`npm install tinydep`: package.json and package-lock.json name it, from the person's
registry, here a tiny HTTP registry on 127.0.0.1) reaches verified with no person's step, its
`node_modules` built by `npm ci` in ralph's store. Where packages come from is the person's: a
`file:` tarball the agent made, a lockfile entry from another host, an `.npmrc` in the tree are
held with their line; no install script of any package runs (control: its code is usable)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from ralph.store.environments.envbuild import environments
from ralph.store.environments.envcopy import record_start_envs, start_envs
from ralph.store.environments.nodebuild import record_node_start
from tests.conftest import Project, Result
from tests.e2e.test_package_sources import boxed_agent
from tests.e2e.test_sandbox_run import disk_tmp, need
from tests.fakes.npmregistry import TINYDEP, Registry, tarball

__all__ = ["disk_tmp"]  # a fixture: the bwrap run's project lives on disk, outside /tmp

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed"),
]

SPEC = '---\ntest_command: "node --test"\n---\n# mean\n\n`mean(xs)` in index.js.\n'
WRONG = "exports.mean = (xs) => xs.length;\n"
RIGHT = "const { total } = require('tinydep');\nexports.mean = (xs) => total(xs) / xs.length;\n"
TEST = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { mean } = require('../index.js');\n\n"
    "test('mean', () => {\n  assert.strictEqual(mean([1, 2, 3]), 2);\n});\n"
)
PACKAGE = {"name": "calc", "version": "1.0.0", "private": True}
MARKER = "postinstall-ran"
# a package whose install script would leave a marker (its path given when made)
SCRIPTED = {
    "index.js": TINYDEP,
    "package.json": json.dumps({"scripts": {"postinstall": "touch {marker}"}}),
}

# a package whose command is named `node`: under `npm test` it would run in node's place
SNEAKY = {
    "index.js": TINYDEP,
    "fake.sh": (
        "#!/bin/sh\nprintf 'TAP version 13\\n# Subtest: mean\\nok 1 - mean\\n1..1\\n# tests 1\\n"
        "# suites 0\\n# pass 1\\n# fail 0\\n# cancelled 0\\n# skipped 0\\n# todo 0\\n'\n"
    ),
    "package.json": json.dumps({"bin": {"node": "fake.sh", "sneaky": "fake.sh"}}),
}


def lock(registry: Registry | None, entries: dict[str, dict[str, str]] | None = None) -> str:
    """package-lock.json (lockfileVersion 3) for PACKAGE with `entries` (name -> entry)."""
    entries = entries or {}
    root = {**PACKAGE, "dependencies": dict.fromkeys(entries, "1.0.0")} if entries else PACKAGE
    root = {k: v for k, v in root.items() if k != "private"}
    packages = {"": root, **{f"node_modules/{n}": e for n, e in entries.items()}}
    data = {"name": "calc", "version": "1.0.0", "lockfileVersion": 3, "requires": True}
    return json.dumps({**data, "packages": packages}, indent=2) + "\n"


def node_project(p: Project) -> None:
    p.write(
        {
            "PROMPT.md": SPEC,
            "package.json": json.dumps(PACKAGE, indent=2) + "\n",
            "package-lock.json": lock(None),
            "index.js": WRONG,
            "test/mean.test.js": TEST,
            ".gitignore": "node_modules/\n",
        }
    )
    p.git("init", "-q")
    p.commit_all()


def declares(name: str, spec: str = "1.0.0") -> str:
    return json.dumps({**PACKAGE, "dependencies": {name: spec}}, indent=2) + "\n"


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    """The person's registry, named by their environment; npm's cache and settings in tmp."""
    scripted = dict(SCRIPTED)
    scripted["package.json"] = scripted["package.json"].replace("{marker}", str(tmp_path / MARKER))
    packages = {"tinydep": {"index.js": TINYDEP}, "scripted": scripted, "sneaky": SNEAKY}
    with Registry(packages) as reg:
        monkeypatch.setenv("npm_config_registry", reg.url)
        monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
        monkeypatch.setenv("npm_config_userconfig", str(tmp_path / "npmrc"))
        monkeypatch.setenv("npm_config_update_notifier", "false")
        yield reg


def agent(p: Project, step: Mapping[str, object], n: int = 6) -> Result:
    steps = [{**step, "signal": "DONE"}, {"signal": "DONE"}]
    return p.run("run", "--agent-command", p.script({"*": steps}), "-n", str(n))


def held(res: Result, source: str) -> None:
    assert res.exit_code != 0, res.stdout
    assert res.project.counts() == {"PROMPT.md": 0}
    assert "a package source no person accepted" in res.stdout, res.stdout
    assert source in res.stdout, res.stdout


NPM_INSTALL = "npm install --no-audit --no-fund --ignore-scripts {what}"


def test_an_agent_that_adds_a_dependency_by_npm_install_is_verified(
    project: Project, registry: Registry
) -> None:
    p = project
    node_project(p)
    res = agent(p, {"run": NPM_INSTALL.format(what="tinydep@1.0.0"), "write": {"index.js": RIGHT}})
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}
    lockfile = json.loads((p.root / "package-lock.json").read_text())
    assert lockfile["packages"]["node_modules/tinydep"]["resolved"].startswith(registry.url)


def test_the_control_without_the_lockfile_the_dependency_is_missing(
    project: Project, registry: Registry
) -> None:
    # the agent's own node_modules never reaches the checks: the same work, but its lockfile
    # left out, so ralph builds nothing and says why (the control of the test above)
    p = project
    node_project(p)
    res = agent(p, {"write": {"index.js": RIGHT, "package.json": declares("tinydep")}}, n=2)
    assert res.exit_code != 0, res.stdout
    assert p.counts() == {"PROMPT.md": 0}
    assert "no package-lock.json" in res.stdout or "in sync" in res.stdout, res.stdout


def test_a_file_tarball_the_agent_made_is_held(
    project: Project, registry: Registry, tmp_path: Path
) -> None:
    p = project
    node_project(p)
    made = tmp_path / "tinydep.tgz"
    made.write_bytes(tarball("tinydep", "1.0.0", {"index.js": TINYDEP}, {}))
    files = {"index.js": RIGHT, "package.json": declares("tinydep", "file:vendor/tinydep.tgz")}
    step = {"run": f"mkdir -p vendor && cp {made} vendor/", "write": files}
    held(agent(p, step, n=3), "package.json: dependencies tinydep = file:vendor/tinydep.tgz")


def test_a_vendored_tarball_is_verified_once_a_person_accepts_it(
    project: Project, registry: Registry, tmp_path: Path
) -> None:
    # an honest local package: `npm install ./vendor/tinydep.tgz` names it in both files
    p = project
    node_project(p)
    made = tmp_path / "tinydep.tgz"
    made.write_bytes(tarball("tinydep", "1.0.0", {"index.js": TINYDEP}, {}))
    install = f"mkdir -p vendor && cp {made} vendor/ && " + NPM_INSTALL.format(
        what="./vendor/tinydep.tgz"
    )
    res = agent(p, {"run": install, "write": {"index.js": RIGHT}}, n=2)
    held(res, "package.json: dependencies tinydep = file:vendor/tinydep.tgz")
    listed = p.run("accept", "--yes")
    assert listed.exit_code == 0, listed.stdout
    assert "+ package.json: dependencies tinydep = file:vendor/tinydep.tgz" in listed.stdout
    res = p.run("run", "--agent-command", p.script({"*": [{"signal": "DONE"}]}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_a_lock_entry_from_another_host_is_held(project: Project, registry: Registry) -> None:
    p = project
    node_project(p)
    with Registry({"tinydep": {"index.js": TINYDEP}}) as other:
        files = {
            "index.js": RIGHT,
            "package.json": declares("tinydep"),
            "package-lock.json": lock(other, {"tinydep": other.lock_entry("tinydep")}),
        }
        res = agent(p, {"write": files}, n=3)
        assert other.requests == []  # never fetched from there
    held(res, f"package-lock.json: node_modules/tinydep resolved {other.url}")


def test_an_npmrc_in_the_tree_is_held(project: Project, registry: Registry) -> None:
    p = project
    node_project(p)
    step = {
        "run": NPM_INSTALL.format(what="tinydep@1.0.0"),
        "write": {"index.js": RIGHT, ".npmrc": "registry=http://127.0.0.1:9/\n"},
    }
    held(agent(p, step, n=3), ".npmrc: package-manager settings in the tree")


def test_no_install_script_runs_and_the_package_is_usable(
    project: Project, registry: Registry, tmp_path: Path
) -> None:
    p = project
    node_project(p)
    right = RIGHT.replace("'tinydep'", "'scripted'")
    res = agent(p, {"run": NPM_INSTALL.format(what="scripted@1.0.0"), "write": {"index.js": right}})
    assert res.exit_code == 0, res.stdout  # the control: its code is there and works
    assert p.counts() == {"PROMPT.md": 3}
    assert not (tmp_path / MARKER).exists()  # its postinstall never ran


def test_a_command_that_shadows_node_is_refused(project: Project, registry: Registry) -> None:
    # `npm test` puts node_modules/.bin first on PATH: a package's `node` would answer for it
    p = project
    node_project(p)
    p.write({"package.json": json.dumps({**PACKAGE, "scripts": {"test": "node --test"}})})
    p.write({"PROMPT.md": SPEC.replace("node --test", "npm test")})
    p.commit_all()
    res = agent(p, {"run": NPM_INSTALL.format(what="sneaky@1.0.0")}, n=3)
    assert res.exit_code != 0, res.stdout
    assert p.counts() == {"PROMPT.md": 0}
    assert "shadows one on PATH: node_modules/.bin/node (from sneaky)" in res.stdout, res.stdout


def test_node_modules_missing_is_said_at_the_start(project: Project, registry: Registry) -> None:
    p = project
    node_project(p)
    p.write({"package.json": declares("tinydep")})
    p.commit_all()
    res = agent(p, {"write": {}}, n=1)
    assert "node_modules is missing" in res.stdout and "run npm ci first" in res.stdout


# a check of the agent's that looks for the person's registry token in ralph's whole store
SNOOP = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

test('the store holds no token a check can read', () => {
  const token = ['SECRET', 'TOKEN'].join('-');  // not in this file's own text
  let envs = fs.realpathSync('node_modules/tinydep');
  while (path.basename(envs) !== 'envs') envs = path.dirname(envs);
  const found = [];
  const walk = (dir) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        try { if (fs.readFileSync(p, 'utf8').includes(token)) found.push(p); } catch {}
      }
    }
  };
  walk(path.dirname(envs));
  assert.ok(fs.readdirSync(envs).includes('start'));  // it reached the store: not vacuous
  assert.strictEqual(found.join(","), "");
});
"""


def test_under_bwrap_the_honest_dependency_is_built(
    disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the person's ~/.npmrc holds their registry's token: the build uses it, no check reads it
    need("bwrap", monkeypatch)
    with Registry({"tinydep": {"index.js": TINYDEP}}) as reg:
        npmrc = disk_tmp / "npmrc"
        host = reg.url.removeprefix("http:")
        npmrc.write_text(f"registry={reg.url}\n{host}:_authToken=SECRET-TOKEN\n")
        monkeypatch.setenv("npm_config_userconfig", str(npmrc))
        monkeypatch.setenv("npm_config_cache", str(disk_tmp / "npm-cache"))
        monkeypatch.setenv("npm_config_update_notifier", "false")
        p = Project(disk_tmp / "proj", monkeypatch)
        p.root.mkdir()
        node_project(p)
        files = {
            "index.js": RIGHT,
            "package.json": declares("tinydep"),
            "package-lock.json": lock(reg, {"tinydep": reg.lock_entry("tinydep")}),
            "test/snoop.test.js": SNOOP,
        }
        script = boxed_agent(p, files)
        res = p.run("run", "--sandbox", "bwrap", "--agent-command", script, "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_only_node_changed_the_venv_is_the_starts(project: Project, registry: Registry) -> None:
    # one folder holds both environments the checks link: the one not rebuilt is the start's
    p = project
    node_project(p)
    (p.root / ".venv").mkdir()
    (p.root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    record_start_envs(p.root)
    record_node_start(p.root, os.environ, keep=False)
    entry = {"tinydep": registry.lock_entry("tinydep")}
    p.write({"package.json": declares("tinydep"), "package-lock.json": lock(registry, entry)})
    found = environments(p.root, p.root, os.environ)
    assert found.why is None and found.built is None  # no virtualenv was built
    venv = found.folder / ".venv"
    assert venv.is_symlink() and venv.resolve() == (start_envs(p.root) / ".venv").resolve()
    assert (found.folder / "node_modules" / "tinydep" / "index.js").is_file()
    assert not (p.root / "node_modules").exists()  # never the project's
