"""commands/run.py: `ralph run`; what it passes to the loop (`run_options`): the resolved settings
and ralph.yaml themselves, no copy of either, and what is built from them."""

from __future__ import annotations

import os
from pathlib import Path

from ralph.commands.run import run_options
from ralph.commands.runreports import ReportSink
from ralph.commands.webhooks import NAME, Told
from ralph.plugins.manager import plugins
from ralph.run.settings import resolve
from ralph.store.person.config import parse_config
from ralph.ui.webhook import Webhook
from tests.conftest import Project

SPECS = {
    "specs/a.spec.md": "# a\n- [ ] a\n",
    "specs/b.spec.md": "# b\n- [ ] b\n",
    "specs/c.spec.md": "# c\n- [ ] c\n",
}


def test_a_path_relative_to_the_current_folder(git_project: Project) -> None:
    git_project.write(SPECS)
    cwd = Path.cwd()
    os.chdir(git_project.root / "specs")
    try:
        from ralph.specs.selection import select_specs

        assert select_specs(git_project.root, ["b.spec.md"]) == ("specs/b.spec.md",)
    finally:
        os.chdir(cwd)


def test_the_loop_gets_the_settings_and_ralph_yaml_themselves(tmp_path: Path) -> None:
    config = parse_config("max_cost: 3.0\npool: {rotation: fallback}\nbreaker: {threshold: 2}\n")
    settings = resolve({"max_cost": 1.0, "report": (f"json={tmp_path / 'r.json'}",)}, config)
    opts = run_options(tmp_path, settings, config, (), None)
    assert opts.settings is settings and opts.config is config  # carried, not copied
    assert (opts.settings.max_cost, opts.config.breaker.threshold) == (1.0, 2)
    assert opts.policy.rotation == "fallback"  # built from them
    assert opts.own_files == ("r.json",)  # this run's report, inside the project
    assert opts.observers is None and opts.secrets == frozenset()  # no webhook


def test_a_webhooks_url_is_a_secret_of_the_run_and_its_ears(tmp_path: Path) -> None:
    config = parse_config("")
    hook = Webhook("http://127.0.0.1:9/hook?token=s3cret")
    sink = ReportSink()
    sink.register(Told(hook, tmp_path.name), NAME)  # as `ralph run` registers it
    try:
        opts = run_options(tmp_path, resolve({}, config), config, (), hook)
    finally:
        plugins().drop_own(NAME)
    assert opts.secrets == hook.secrets and "token=s3cret" in opts.secrets
    assert opts.observers is not None
