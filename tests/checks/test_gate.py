"""checks/gate.py: the DONE gate of a run, in-process and in milliseconds.

Every rule the gate applies to a DONE, each beside an honest DONE that passes: the gate is
built as a run builds it, on a git repository, with the check commands played in-process
through its process seam (tests/fakes/commands.py) and a semantic check's judge the scripted
agent played in-process through the agent seam (tests/fakes/scripted_inline.py). Git is the
only program that starts. The CLI tests in tests/e2e/ hold the same rules end to end.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ralph.checks.authorship import front_digests
from ralph.checks.gate import (
    AGENT_FRONT_MATTER_HINT,
    FRONT_MATTER_HINT,
    REFUSED,
    SPECS_HINT,
    DoneGate,
    Verdict,
)
from ralph.checks.hint import SEALED_HINT, WORK_HINT
from ralph.checks.records import CheckRan, ClaimMoved, DoneRefused, GateDecided, GateRecord
from ralph.process.request import ProcessRequest
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.specset import front_digest
from ralph.rules.counts.state import SpecState, State
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.specs.discovery import discover_specs
from ralph.specs.frontmatter import split_front_matter
from ralph.store.disk.workspace import Workspace
from ralph.store.environments.envbuild import SITES
from ralph.store.person import sealed
from tests.fakes.commands import Commands, Play
from tests.fakes.scripted_inline import inline_agent

A = "specs/a.spec.md"
B = "specs/b.spec.md"
PASSED = (0, "3 passed in 0.01s\n")
FAILED = (1, "1 failed, 2 passed in 0.01s\n")
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def spec(front: str, body: str = "# a\n") -> str:
    return f"---\n{front}\n---\n{body}"


@dataclass
class Rig:
    """A project, its workspace, and a gate over it as a run builds one."""

    root: Path
    ws: Workspace
    gate: DoneGate
    commands: Commands
    records: list[GateRecord] = field(default_factory=list)
    judged: Path | None = None  # the judge's script

    def specs(self) -> dict[str, Spec]:
        return {s.path: s for s in discover_specs(self.root)}

    def write(self, name: str, text: str) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def done(
        self, path: str = A, *, tree: str | None = "t1", spec: Spec | None = None, **kw: Any
    ) -> Verdict:
        """The verdict on a DONE of `path` (`spec`: as the spec read when the rotation began;
        default: as it is now)."""
        script = self.root.parent / "judge.json"
        if not script.exists():
            script.write_text(json.dumps({"JUDGE": "VERIFIED"}))
        given: dict[str, Any] = {
            "mode": "IMPLEMENT",
            "iteration": 1,
            "output": "done",
            "prompt": "",
            "tree": lambda: tree,
            "handoff": self.ws.dir / "handoff.md",
            "judge": inline_agent(script)(),
        }
        return self.gate.judge_done(spec or self.specs()[path], **{**given, **kw})

    def of(self, kind: type[Any]) -> list[Any]:
        return [r for r in self.records if isinstance(r, kind)]


def rig(
    tmp_path: Path,
    files: dict[str, str],
    plays: Mapping[str, Play] | None = None,
    changed: Callable[[], Sequence[str]] = tuple,
) -> Rig:
    """The project of `files` (a git repository, committed), and its gate started as a run
    starts it: the tests as they are now are the baseline."""
    root = tmp_path / "p"
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    ws = Workspace(root)
    ws.ensure()
    commands = Commands(plays or {})
    records: list[GateRecord] = []
    gate = DoneGate(root, ws, records.append, changed, launcher=commands.launcher)
    out = Rig(root, ws, gate, commands, records)
    gate.start_tests(list(out.specs().values()))
    return out


# -- the checks decide: a DONE counts only when they pass


def test_a_done_whose_test_command_fails_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": FAILED})
    verdict = r.done()
    assert verdict.signal == REFUSED
    assert verdict.note is not None
    assert "test_command: exit code 1, expected 0" in verdict.note and WORK_HINT in verdict.note
    # the agent reads why in its next prompt and its handoff; the worklog has every check
    assert "exit code 1" in r.gate.prompt_section(r.specs()[A], "IMPLEMENT")
    assert [d.spec for d in r.of(DoneRefused)] == [A]
    assert [c.outcome["name"] for c in r.of(CheckRan)] == ["test_command"]
    assert [g.passed for g in r.of(GateDecided)] == [False]


def test_a_done_whose_test_command_passes_counts_and_clears_the_refusal(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": FAILED})
    assert r.done().signal == REFUSED
    r.commands.plays = {"pytest -q": PASSED}
    verdict = r.done(tree="t2")
    assert verdict.signal == "DONE" and verdict.best
    assert verdict.note == "checks passed: test_command"
    assert verdict.counts == Counts(3, 0, 0, ("pytest",))
    assert A not in r.gate.refusals
    # where it ran: the clean room, never the tree, told which spec and check it is
    ran = r.commands.ran[-1]
    assert ran.room == ran.cwd and not ran.cwd.is_relative_to(r.root)
    assert (ran.env["RALPH_SPEC"], ran.env["RALPH_CHECK"]) == (A, "test_command")


def test_a_test_run_that_executed_no_test_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": (5, "no tests ran\n")})
    assert r.done().signal == REFUSED
    r.commands.plays = {"pytest -q": (0, "no tests ran in 0.01s\n")}
    verdict = r.done(tree="t2")
    assert verdict.signal == REFUSED and "ran no test" in (verdict.note or "")


def test_the_checks_run_on_what_the_room_holds(tmp_path: Path) -> None:
    """The fake test run reads the room as a real one would: the agent's work, once it is in
    the tree, is what makes it pass."""

    def tests(request: ProcessRequest) -> tuple[int, str]:
        return PASSED if (request.cwd / "calc.py").is_file() else FAILED

    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": tests})
    assert r.done().signal == REFUSED
    r.write("calc.py", "def add(a, b):\n    return a + b\n")
    assert r.done(tree="t2").signal == "DONE"


def test_a_spec_without_front_matter_counts_and_runs_nothing(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: "# a\n"})
    assert r.done() == Verdict("DONE", None)
    assert r.commands.ran == [] and r.records == []


def test_an_optional_check_that_fails_only_warns(tmp_path: Path) -> None:
    front = "checks: [{name: lint, method: external, required: false, config: {command: lint}}]"
    r = rig(tmp_path, {A: spec(front)}, {"lint": (1, "E1\n")})
    verdict = r.done()
    assert verdict.signal == "DONE"
    assert verdict.note is not None and "warnings: lint" in verdict.note
    r.write(A, spec(front.replace("required: false, ", "")))
    assert r.done(tree="t2").signal == REFUSED


def test_every_command_runs_so_the_agent_learns_every_failure(tmp_path: Path) -> None:
    front = (
        "test_command: pytest -q\nchecks: [{name: lint, method: external, config: {command: lint}}]"
    )
    r = rig(tmp_path, {A: spec(front)}, {"pytest -q": FAILED, "lint": (1, "E1\n")})
    verdict = r.done()
    assert verdict.signal == REFUSED
    assert r.commands.lines() == ["pytest -q", "lint"]
    assert "test_command" in (verdict.note or "") and "lint" in (verdict.note or "")


# -- the cache: an unchanged tree is not tested again, a changed one always is


def test_a_cached_result_stands_only_for_the_same_tree(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED})
    assert r.done(tree="t1").signal == "DONE"
    again = r.done(tree="t1")
    assert again.signal == "DONE" and again.note == "checks passed: test_command (cached)"
    assert len(r.commands.ran) == 1
    r.commands.plays = {"pytest -q": FAILED}
    assert r.done(tree="t2").signal == REFUSED  # another tree: run again, and it fails now
    assert r.done(tree=None).signal == REFUSED  # no key: never cached
    assert len(r.commands.ran) == 3


def test_a_check_that_opts_out_of_the_cache_runs_every_time(tmp_path: Path) -> None:
    front = "checks: [{name: db, method: external, cache: false, config: {command: db}}]"
    r = rig(tmp_path, {A: spec(front)}, {"db": (0, "ok\n")})
    r.done(tree="t1")
    r.done(tree="t1")
    assert r.commands.lines() == ["db", "db"]


# -- the tests' counts: a DONE may not fall behind the spec's best run


def test_fewer_passing_tests_than_the_best_run_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED})
    best = SpecState(A, done_count=1, best_tests=Counts(5, 0, 0, ("pytest",)))
    verdict = r.done(row=best)
    assert verdict.signal == REFUSED and "tests: " in (verdict.note or "")
    assert verdict.counts == Counts(3, 0, 0, ("pytest",)) and not verdict.best
    r.commands.plays = {"pytest -q": (0, "5 passed in 0.01s\n")}
    assert r.done(tree="t2", row=best).signal == "DONE"


def test_a_run_without_a_summary_where_there_was_one_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: make test")}, {"make test": (0, "ok\n")})
    best = SpecState(A, best_tests=Counts(3, 0, 0, ("pytest",)))
    assert r.done(row=best).signal == REFUSED
    assert r.done(tree="t2", row=SpecState(A)).signal == "DONE"


# -- what decides the verdict is a person's: the specs, their front matter, the tests


def test_a_spec_removed_during_the_run_refuses_every_done(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), B: "# b\n"}
    r = rig(tmp_path, files, {"pytest -q": PASSED})
    person = front_digests(r.root)
    assert r.done(person_specs=person).signal == "DONE"
    (r.root / B).unlink()
    verdict = r.done(tree="t2", person_specs=person)
    assert verdict.signal == REFUSED and SPECS_HINT in (verdict.note or "")
    assert B in (verdict.note or "") and len(r.commands.ran) == 1  # nothing else ran


def test_another_specs_front_matter_changed_refuses(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), B: spec("test_command: pytest -q")}
    r = rig(tmp_path, files, {"pytest -q": PASSED})
    person = front_digests(r.root)
    r.write(B, "# b: its checks gone\n")
    assert r.done(person_specs=person).signal == REFUSED
    r.write(B, files[B])  # restored
    assert r.done(person_specs=person).signal == "DONE"


def test_front_matter_broken_mid_run_refuses_without_a_crash(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED})
    r.write(A, spec("test_command: [unclosed"))
    verdict = r.done()
    assert verdict.signal == REFUSED and FRONT_MATTER_HINT in (verdict.note or "")
    assert r.gate.new_errors(list(r.specs().values()))  # said once
    assert r.gate.new_errors(list(r.specs().values())) == []
    assert r.commands.ran == []


def test_front_matter_the_agent_changed_during_the_rotation_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": FAILED})
    began = r.specs()[A]  # the spec as the rotation began
    r.write(A, "# a: no checks any more\n")
    verdict = r.done(spec=began)
    assert verdict.signal == REFUSED and AGENT_FRONT_MATTER_HINT in (verdict.note or "")
    assert r.commands.ran == []
    r.write(A, began.text)  # put back: the checks decide again
    r.commands.plays = {"pytest -q": PASSED}
    assert r.done(spec=began).signal == "DONE"


def test_front_matter_an_agent_wrote_earlier_is_refused_until_a_person_says(
    tmp_path: Path,
) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED})
    front = split_front_matter(r.specs()[A].text)[0]
    marked = SpecState(A, agent_front_matter=front_digest(front))
    verdict = r.done(row=marked)
    assert verdict.signal == REFUSED and "ralph accept" in (verdict.note or "")
    assert r.commands.ran == []
    # a person changed it since: the mark names other front matter, the checks decide
    assert r.done(row=SpecState(A, agent_front_matter=front_digest("other"))).signal == "DONE"


def test_weakened_tests_refuse_every_done(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), "tests/test_calc.py": TEST}
    r = rig(tmp_path, files, {"pytest -q": PASSED})
    r.write("tests/test_calc.py", TEST.replace("assert add(2, 3) == 5", "pass"))
    verdict = r.done()
    assert verdict.signal == REFUSED
    assert "the tests were weakened" in (verdict.note or "") and "test_add" in (verdict.note or "")
    assert r.commands.ran == []  # nothing runs over weakened tests
    assert [g.passed for g in r.of(GateDecided)] == [False]


def test_tests_that_grow_are_no_weakening(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), "tests/test_calc.py": TEST}
    r = rig(tmp_path, files, {"pytest -q": PASSED})
    more = "\n\ndef test_zero():\n    from calc import add\n    assert add(0, 0) == 0\n"
    r.write("tests/test_calc.py", TEST + more)
    r.write("tests/test_more.py", "def test_one():\n    assert 1 == 1\n")
    assert r.done().signal == "DONE"


def test_a_spec_whose_tests_may_change_is_not_guarded(tmp_path: Path) -> None:
    front = "test_command: pytest -q\ntests: {may_change: true}"
    files = {A: spec(front), "tests/test_calc.py": TEST}
    r = rig(tmp_path, files, {"pytest -q": PASSED})
    r.write("tests/test_calc.py", TEST.replace("== 5", "== 6"))
    assert r.done().signal == "DONE"


def test_tests_a_spec_may_change_become_the_baseline_only_by_a_persons_front_matter(
    tmp_path: Path,
) -> None:
    """A's rotation changes the tests B is judged by: with A's front matter a person's, the
    change is the baseline; with A's front matter an agent's, B's DONE is refused."""
    allowed = spec("test_command: pytest -q\ntests: {may_change: true}")
    files = {A: allowed, B: spec("test_command: pytest -q"), "tests/test_calc.py": TEST}
    for mark, refused in ((None, False), (front_digest(split_front_matter(allowed)[0]), True)):
        r = rig(tmp_path / str(refused), files, {"pytest -q": PASSED})
        r.write("tests/test_calc.py", TEST.replace("== 5", "== 6"))
        state = State(specs=(SpecState(A, agent_front_matter=mark), SpecState(B)))
        r.gate.keep_tests(r.specs()[A], ["tests/test_calc.py"], state)
        assert (r.done(B).signal == REFUSED) is refused


def test_a_done_while_the_ignore_rules_wait_for_a_person_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: "# a\n"})
    signal, note = r.gate.refuse_rules(
        r.specs()[A], 1, r.ws.dir / "h.md", [".gitignore: `*.py` was added", ".ralphignore"]
    )
    assert signal == REFUSED and note is not None
    assert "ignore rules wait for a person: .gitignore: `*.py` was added (and 1 more)" in note
    assert "ignore rules" in r.gate.prompt_section(r.specs()[A], "IMPLEMENT")


# -- sealed tests: the person's, run after the checks passed


SEALED = "tests/test_sealed.py"


def sealed_rig(tmp_path: Path, front: str | None) -> tuple[Rig, list[bool]]:
    """A spec with a sealed test file; the fake test run passes only where that file is."""
    seen: list[bool] = []

    def tests(request: ProcessRequest) -> tuple[int, str]:
        there = (request.cwd / SEALED).is_file()
        seen.append(there)
        return PASSED if not there or "fixed" in (request.cwd / "calc.py").read_text() else FAILED

    files = {A: spec(front) if front else "# a\n", "calc.py": "wrong\n"}
    if front is None:
        files["ralph.yaml"] = "test_command: pytest -q\n"
    r = rig(tmp_path, files, {"pytest -q": tests})
    sealed.add(r.ws.root, SEALED, (A,), b"def test_sealed():\n    assert True\n")
    return r, seen


@pytest.mark.parametrize("front", ["test_command: pytest -q", None])
def test_sealed_tests_refuse_a_done_they_fail(tmp_path: Path, front: str | None) -> None:
    r, seen = sealed_rig(tmp_path, front)
    verdict = r.done()
    assert verdict.signal == REFUSED and SEALED_HINT in (verdict.note or "")
    assert seen[-1] and not (r.root / SEALED).exists()  # in the room, never in the tree
    r.write("calc.py", "fixed\n")
    assert r.done(tree="t2").signal == "DONE"


# -- semantic checks: a judge, another agent, after every command passed


JUDGED = "checks: [{name: judged, method: semantic, config: {check_for: [it works]}}]"


def test_a_judge_that_answers_not_verified_refuses(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec(JUDGED)})
    (r.root.parent / "judge.json").write_text(json.dumps({"JUDGE": "NOT_VERIFIED: no"}))
    assert r.done().signal == REFUSED
    (r.root.parent / "judge.json").write_text(json.dumps({"JUDGE": "VERIFIED"}))
    assert r.done(tree="t2").signal == "DONE"
    assert r.commands.ran == []  # the judge is an agent, not a check command


def test_the_judge_is_not_asked_while_a_command_fails(tmp_path: Path) -> None:
    front = f"test_command: pytest -q\n{JUDGED}"
    r = rig(tmp_path, {A: spec(front)}, {"pytest -q": FAILED})
    verdict = r.done()
    assert verdict.signal == REFUSED and verdict.gate is not None
    assert [x.skipped for x in verdict.gate.results] == [False, True]
    assert not (r.root.parent / "judge.json.calls.jsonl.judge").exists()


# -- the strict tier: the claim is compared with the boxes on disk


def test_the_strict_tier_refuses_unticked_boxes(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("verification: strict", "# a\n- [ ] one\n")})
    assert r.done().signal == REFUSED
    assert r.of(ClaimMoved)  # each transition of the claim is recorded
    r.write(A, spec("verification: strict", "# a\n- [x] one\n"))
    assert r.done(tree="t2").signal == "DONE"


# -- a Ctrl-C while the checks run voids the verdict


def test_an_interrupted_check_is_no_verdict(tmp_path: Path) -> None:
    def ctrl_c(request: ProcessRequest) -> tuple[int, str]:
        raise KeyboardInterrupt

    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": ctrl_c})
    verdict = r.done()
    assert (verdict.signal, verdict.interrupted) == ("ERROR", True)
    assert [g.interrupted for g in r.of(GateDecided)] == [True]
    assert r.of(DoneRefused) == []


# -- iteration caps, prompts, notices


def test_a_spec_at_its_iteration_cap_is_blocked(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("max_iterations: 2"), B: "# b\n"})
    specs = list(r.specs().values())
    below = State(specs=(SpecState(A, implement_rotations=1), SpecState(B, implement_rotations=9)))
    assert r.gate.blocked(specs, below) == {}
    at = State(specs=(SpecState(A, implement_rotations=2), SpecState(B)))
    assert r.gate.blocked(specs, at) == {A: "max_iterations 2 reached (2 rotations)"}


def test_a_refusal_by_a_shared_test_command_is_said_once(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), B: spec("test_command: pytest -q")}
    r = rig(tmp_path, files, {"pytest -q": FAILED})
    first = r.done()
    assert first.notice is not None and B in first.notice
    assert r.done(tree="t2").notice is None
    alone = rig(tmp_path / "alone", {A: spec("test_command: pytest -q")}, {"pytest -q": FAILED})
    assert alone.done().notice is None


# -- the final verification: every spec's checks on the tree as it is


def test_check_all_runs_every_specs_checks_for_the_final_verification(tmp_path: Path) -> None:
    files = {
        A: spec("test_command: pytest -q"),
        B: "# b: no checks\n",
        "specs/c.spec.md": spec(
            "coder: {promise: X, description: d}\n"
            "checks: [{method: external, config: {command: lint}}]"
        ),
        "specs/d.spec.md": spec("nope: 1"),
    }
    r = rig(tmp_path, files, {"pytest -q": FAILED, "lint": (0, "fine\n")})
    judge = inline_agent(tmp_path / "judge.json")()
    found = r.gate.check_all(list(r.specs().values()), iteration=7, tree=lambda: None, judge=judge)
    verdicts = {path: g.passed for path, g in found}
    assert verdicts == {A: False, "specs/c.spec.md": True, "specs/d.spec.md": False}
    assert dict(found)["specs/d.spec.md"].reasons == (
        "front matter: specs/d.spec.md: front matter: nope: unknown key",
    )
    ran = r.of(CheckRan)
    assert {x.spec for x in ran} == {A, "specs/c.spec.md"} and {x.iteration for x in ran} == {7}


def test_check_all_fails_a_spec_over_weakened_tests(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), "tests/test_calc.py": TEST}
    r = rig(tmp_path, files, {"pytest -q": PASSED})
    judge = inline_agent(tmp_path / "judge.json")()
    specs = list(r.specs().values())
    assert [
        g.passed for _, g in r.gate.check_all(specs, iteration=1, tree=lambda: None, judge=judge)
    ] == [True]
    r.write("tests/test_calc.py", TEST.replace("assert add(2, 3) == 5", "pass"))
    found = r.gate.check_all(specs, iteration=2, tree=lambda: None, judge=judge)
    assert [(g.passed, g.results[0].name) for _, g in found] == [(False, "tests")]


# -- what the test run loads: no file the agent added may shadow or patch it


def test_a_file_the_agent_added_that_shadows_the_test_runner_is_refused(tmp_path: Path) -> None:
    added: list[str] = []
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED}, lambda: added)
    r.write("calc.py", "def add(a, b):\n    return a + b\n")
    added.append("calc.py")
    assert r.done().signal == "DONE"  # the agent's own code: loaded, and no harm
    r.write("pytest.py", "print('3 passed')\n")
    added.append("pytest.py")
    verdict = r.done(tree="t2")
    assert verdict.signal == REFUSED and "what the test run loads" in (verdict.note or "")
    assert "pytest.py" in (verdict.note or "") and r.commands.lines().count("pytest -q") == 1
    # the interpreters the checks use were asked for their site-packages by the same seam
    assert any(request.argv[1:] == SITES for request in r.commands.ran)


# -- a refusal says why: the command's own first error line, for the person and the agent


def test_a_refusal_carries_the_commands_first_error_for_the_person_and_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "hunter2-very-secret-value"
    monkeypatch.setenv("DATES_API_TOKEN", secret)
    rooms: list[Path] = []

    def crashes(request: ProcessRequest) -> tuple[int, str, str]:
        rooms.append(request.cwd)
        stdout = "".join(f"collecting {i}\n" for i in range(40))  # a long stdout
        stderr = (
            f'  File "{request.cwd}/dates.py", line 1, in <module>\n'
            f"RuntimeError: the server refused token {secret}\n"
        )
        return 1, stdout, stderr

    files = {A: spec("test_command: pytest -q"), "setup.cfg": "[options]\ninstall_requires = x\n"}
    r = rig(tmp_path, files, {"pytest -q": crashes})
    verdict = r.done()
    error = "RuntimeError: the server refused token [REDACTED]"
    assert verdict.signal == REFUSED and verdict.note is not None
    assert f"test_command: exit code 1, expected 0; error: {error}" in verdict.note
    assert WORK_HINT in verdict.note and "front matter" not in verdict.note
    prompt = r.gate.prompt_section(r.specs()[A], "IMPLEMENT")
    assert error in prompt and "(stderr)" in prompt and "collecting 39" in prompt
    # the room is ralph's: the agent reads the path it knows
    assert rooms and str(rooms[0]) not in prompt and 'File "dates.py", line 1' in prompt
    assert secret not in prompt + verdict.note + repr(r.records)
    [ran] = [c.outcome for c in r.of(CheckRan) if c.outcome["name"] == "test_command"]
    assert ran["error"] == error  # the worklog's check record says it too


def test_a_declared_package_the_environment_lacks_says_so_and_what_to_do(tmp_path: Path) -> None:
    missing = (1, "E   ModuleNotFoundError: No module named 'isodate'\n1 error in 0.1s\n")
    files = {
        A: spec("test_command: pytest -q"),
        "setup.cfg": "[options]\ninstall_requires =\n    isodate>=0.6\n",
    }
    note = rig(tmp_path, files, {"pytest -q": missing}).done().note or ""
    assert "error: ModuleNotFoundError: No module named 'isodate'" in note
    assert "`isodate` is declared by setup.cfg but not installed in the checks' environment" in note
    assert "pip install" in note and "front matter" not in note
    # the control: a module no file declares is the work's to fix (or to declare)
    undeclared = {A: spec("test_command: pytest -q")}
    other = rig(tmp_path / "u", undeclared, {"pytest -q": missing}).done().note or ""
    assert "No module named 'isodate'" in other and "declared by" not in other
    assert WORK_HINT in other


def test_a_passing_done_says_nothing_of_errors(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED})
    verdict = r.done()
    assert verdict.signal == "DONE" and "error" not in (verdict.note or "")
    assert all("error" not in c.outcome for c in r.of(CheckRan))
