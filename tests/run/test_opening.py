"""run/opening.py: what a run says as it starts, as notices (pure: lines in, notices out).
Each notice beside its control: nothing to say, no notice. (`opening.tests_notices` is called
through its module: pytest would collect a function named test* imported here.)"""

from __future__ import annotations

from ralph.run import opening
from ralph.run.events import Notice

spec_notices = opening.spec_notices


def test_nothing_edited_and_no_environment_say_nothing() -> None:
    assert opening.tests_notices([], taken=True, env_lines=[]) == []
    assert opening.tests_notices([], taken=False, env_lines=[""]) == []


def test_tests_a_person_edited_are_an_info_the_first_five_named() -> None:
    edited = [f"tests/t{n}.py" for n in range(6)]
    [notice] = opening.tests_notices(edited, taken=True, env_lines=[])
    assert notice.level == "info"
    assert notice.message == (
        "tests edited while ralph was not running: "
        "tests/t0.py, tests/t1.py, tests/t2.py, tests/t3.py, tests/t4.py and 1 more"
    )
    [five] = opening.tests_notices(edited[:5], taken=True, env_lines=[])
    assert "more" not in five.message and five.message.endswith("tests/t4.py")


def test_tests_changed_after_a_killed_run_are_not_taken_and_say_how_to_accept() -> None:
    [notice] = opening.tests_notices(["tests/t.py"], taken=False, env_lines=[])
    assert notice.level == "warning"
    assert "not taken as a person's edit (tests/t.py)" in notice.message
    assert notice.message.endswith("accept with `ralph accept`")


def test_the_environment_the_checks_hold_is_a_warning_after_the_tests() -> None:
    notices = opening.tests_notices(["tests/t.py"], taken=True, env_lines=["the checks hold HOME"])
    assert [n.level for n in notices] == ["info", "warning"]
    assert notices[1] == Notice("warning", "the checks hold HOME")


def test_no_template_no_drop_nothing_held_or_pending_say_nothing() -> None:
    assert spec_notices([], ("a.txt",), (), [], []) == []  # files moved, no spec dropped


def test_each_template_spec_is_named_in_a_warning_of_its_own() -> None:
    notices = spec_notices(["specs/a.spec.md", "specs/b.spec.md"], (), (), [], [])
    assert [n.level for n in notices] == ["warning", "warning"]
    assert notices[0].message.startswith("specs/a.spec.md is still the template `ralph init`")
    assert notices[1].message.startswith("specs/b.spec.md is still the template")


def test_dropped_specs_say_which_files_changed_or_that_the_snapshot_is_missing() -> None:
    [known] = spec_notices([], ("a.txt",), ("specs/a.spec.md",), [], [])
    assert known.message == (
        "files changed since the last run: a.txt; "
        "verified specs back to 2/3 for one more review: specs/a.spec.md"
    )
    [unknown] = spec_notices([], None, ("specs/a.spec.md",), [], [])
    assert "snapshot is missing or unreadable" in unknown.message


def test_held_specs_and_pending_ignore_rules_wait_for_a_person() -> None:
    notices = spec_notices([], (), (), ["specs/a.spec.md", "specs/b.spec.md"], ["- build/"])
    held, pending = notices
    assert "the specs a person wrote wait for a person: specs/a.spec.md (and 1 more)" in (
        held.message
    )
    assert "DONEs are refused until a person restores them" in held.message
    assert pending.message.startswith(
        "the ignore rules differ from the ones a person set: - build/"
    )
    assert pending.message.endswith("accepts them with `ralph accept`")
