"""checks/loaded.py: what a spec's test run would load, asked of the interpreters the checks use
through the checks' launcher (tests/fakes/commands.py plays them in-process)."""

from __future__ import annotations

from pathlib import Path

from ralph.checks import testguard
from ralph.checks.loaded import loaded
from ralph.checks.place import CheckPlace
from ralph.process.request import ProcessRequest
from ralph.specs.frontmatter import parse_front_matter
from ralph.store.environments.envbuild import SITES
from tests.fakes.commands import Answer, Commands

META = parse_front_matter("a.spec.md", "---\ntest_command: pytest\n---\n# a\n")


def judged(root: Path, added: list[str], said: Answer) -> tuple[tuple[str, ...], Commands]:
    """What `loaded` says of `added`, the interpreters on PATH answering `said`."""
    (root / ".ralph").mkdir(exist_ok=True)
    fake = Commands({SITES[-1]: said})
    place = CheckPlace(root, root, fake.launcher)
    return loaded(place, lambda: added, testguard.TestGuard(root, root / ".ralph"), META), fake


def test_a_spec_without_command_checks_loads_nothing_to_judge(tmp_path: Path) -> None:
    (tmp_path / "pytest.py").write_text("print('4 passed')\n")
    guard = testguard.TestGuard(tmp_path, tmp_path / ".ralph")
    place = CheckPlace(tmp_path, tmp_path, Commands().launcher)
    assert loaded(place, lambda: ["pytest.py"], guard, META)
    assert loaded(place, lambda: ["pytest.py"], guard, None) == ()


def test_a_plugin_the_interpreter_s_site_declares_is_one_the_agent_may_not_shadow(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    (site / "mine-1.0.dist-info").mkdir(parents=True)
    (site / "mine-1.0.dist-info" / "entry_points.txt").write_text("[pytest11]\nmine = myplug\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "myplug.py").write_text("x = 1\n")
    lines, fake = judged(project, ["myplug.py"], (0, f"{site}\n"))
    assert "myplug.py" in " ".join(lines)
    asked: list[ProcessRequest] = fake.ran
    assert asked and all(r.argv[1:] == SITES and r.cwd == project for r in asked)
    # honest: the same file, and an interpreter that names no such site, loads nothing
    assert judged(project, ["myplug.py"], (1, f"{site}\n"))[0] == ()
