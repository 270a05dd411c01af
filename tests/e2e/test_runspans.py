"""What an agent changed in the project's environment while a run was live never reaches a
later run's checks (store/environments/runspans.py, store/environments/envcopy.py), through the
real CLI: not after a
run that ended, not after `ralph reset`. What a person changes there once the run ended is
taken."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from ralph.store.environments.envcopy import envs_dir
from ralph.store.environments.runspans import ENDED
from tests.conftest import Project, Result
from tests.e2e.test_environment import RIGHT, make_project, refused, site_of, venv_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")


SHIM = "from _fixed import mean  # noqa\n"


def past(marker: Path) -> None:
    """Wait until the kernel's clock stamps a change later than `marker`'s (its coarse tick
    may still be the one the marker was stamped in)."""
    stamped = os.lstat(marker).st_ctime_ns
    probe = marker.parent / "probe"
    for _ in range(100_000):
        probe.write_text("")
        changed = os.lstat(probe).st_ctime_ns
        probe.unlink()
        if changed > stamped:
            return
    raise AssertionError(f"the clock never moved past {marker}'s change time")


def after_the_end(project: Path) -> None:
    past(envs_dir(project) / ENDED)


def plant_pth(p: Project) -> Result:
    """Run 1: the agent keeps a right mean() in a folder of the .venv that its .pth adds,
    makes calc.py import it and says DONE: refused (the copy was taken before)."""
    site = site_of(p.root / ".venv")
    extra = site.parent.parent / "extra"
    run = (
        f"mkdir -p {extra} && printf %s {shlex.quote(RIGHT)} > {extra / '_fixed.py'} && "
        f"printf '../../extra\\n' > {site / 'zz_extra.pth'}"
    )
    steps = [{"run": run, "write": {"calc.py": SHIM}, "signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "2")
    refused(res)
    return res


def says_done(p: Project) -> Result:
    return p.run("run", "--agent-command", p.script({"*": [{"signal": "DONE"}]}), "-n", "2")


def test_a_pth_planted_in_a_refused_run_never_reaches_the_next_run(project: Project) -> None:
    p = project
    venv_project(p)
    plant_pth(p)
    res = says_done(p)
    refused(res)
    assert "changed while a ralph run was live stay out" in res.stdout, res.stdout
    assert "zz_extra.pth" in res.stdout and "_fixed.py" in res.stdout


def test_ralph_reset_between_the_runs_takes_nothing_of_the_agent(project: Project) -> None:
    p = project
    venv_project(p)
    plant_pth(p)
    assert p.run("reset").exit_code == 0
    res = says_done(p)
    refused(res)
    assert "zz_extra.pth" in res.stdout, res.stdout
    res = says_done(p)  # and again: what a run left out stays out
    refused(res)
    assert "zz_extra.pth" in res.stdout, res.stdout


def test_a_venv_made_by_the_agent_with_a_scripted_python_never_reaches_the_next_run(
    project: Project,
) -> None:
    p = project
    make_project(p)
    fake = shlex.quote("#!/bin/sh\necho 'Ran 1 test'\necho OK\nexit 0\n")
    plant = (
        f"mkdir -p .venv/bin && printf %s {fake} > .venv/bin/python && chmod +x .venv/bin/python"
        " && printf 'home = /usr/bin\\n' > .venv/pyvenv.cfg"
    )
    steps = {"*": [{"run": plant, "signal": "DONE"}]}
    refused(p.run("run", "--agent-command", p.script(steps), "-n", "2"))
    assert p.run("reset").exit_code == 0
    res = says_done(p)
    refused(res)
    assert ".venv/bin/python" in res.stdout, res.stdout


def test_a_package_the_person_installs_after_the_run_is_taken(project: Project) -> None:
    # the honest control: what a person puts in the .venv once the run ended reaches the
    # checks, beside what the agent planted, which stays out
    p = project
    venv_project(p)
    plant_pth(p)
    after_the_end(p.root)
    site = site_of(p.root / ".venv")
    (site / "meanlib").mkdir()
    (site / "meanlib" / "__init__.py").write_text(RIGHT)
    # the agent's step repeats (its script counts the spec's rotations across runs)
    steps = [{"write": {"calc.py": "from meanlib import mean  # noqa\n"}, "signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}
    assert "zz_extra.pth" in res.stdout and "meanlib" not in res.stdout, res.stdout


def test_a_run_that_leaves_the_venv_alone_says_nothing_of_it(project: Project) -> None:
    p = project
    venv_project(p)
    steps = [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert "was live" not in res.stdout, res.stdout
