"""The pure rules of lanes: branch names, what a merge does to the counters, absorbing a
lane's copy of the state."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ralph.rules.counts.lanes import (
    absorb,
    after_merge,
    hold,
    is_lane_name,
    lane_branch,
    lane_name,
    shares,
)
from ralph.rules.counts.state import SpecState, State, Tally


def state(**counts: int) -> State:
    return State(specs=tuple(SpecState(path=p, done_count=c) for p, c in counts.items()))


def counts(s: State) -> dict[str, int]:
    return {row.path: row.done_count for row in s.specs}


def test_lane_names_are_readable_and_unique_per_path() -> None:
    assert lane_branch("specs/api.spec.md").startswith("ralph/api-")
    assert len(lane_name("specs/api.spec.md").rsplit("-", 1)[1]) == 6
    assert lane_name("specs/api.spec.md") != lane_name("other/api.spec.md")
    assert lane_name("PROMPT.md").startswith("prompt-")
    assert lane_name("specs/we ird!.spec.md").startswith("we-ird-")


def test_a_merge_that_changes_files_drops_the_other_verified_specs() -> None:
    s, dropped = after_merge(state(a=3, b=3, c=2), "a", changed=True, same_tree=True)
    assert counts(s) == {"a": 3, "b": 2, "c": 2}
    assert dropped == ("b",)


def test_the_merged_spec_drops_unless_the_merged_tree_is_the_one_it_verified() -> None:
    s, dropped = after_merge(state(a=3, b=3), "a", changed=True, same_tree=False)
    assert counts(s) == {"a": 2, "b": 2}
    assert set(dropped) == {"a", "b"}


def test_a_merge_that_changes_nothing_drops_nothing() -> None:
    s, dropped = after_merge(state(a=3, b=3), "a", changed=False, same_tree=True)
    assert counts(s) == {"a": 3, "b": 3} and dropped == ()


def test_specs_with_open_lanes_are_judged_by_their_own_merge() -> None:
    s, dropped = after_merge(state(a=3, b=3, c=3), "a", changed=True, same_tree=True, queued={"c"})
    assert counts(s) == {"a": 3, "b": 2, "c": 3}
    assert dropped == ("b",)


def test_a_merge_that_changes_files_makes_the_final_verification_stale() -> None:
    s = replace(state(a=3), final=replace(State().final, passed=True))
    assert after_merge(s, "a", changed=True, same_tree=True)[0].final.passed is False
    assert after_merge(s, "a", changed=False, same_tree=True)[0].final.passed is True


def test_hold_starts_a_conflicted_spec_over() -> None:
    assert counts(hold(state(a=3, b=3), "a")) == {"a": 0, "b": 3}


def test_absorb_takes_the_lane_row_and_what_it_spent_only() -> None:
    main = replace(state(a=1, b=3), iteration=7, usage=Tally(rotations=5))
    before = replace(state(a=1, b=3), iteration=4, usage=Tally(rotations=3))
    after = replace(
        state(a=2, b=2),  # the copy dropped b: a lane's change does not reach b
        iteration=5,
        usage=Tally(rotations=4, input_tokens=10),
        agent_usage=(("x", Tally(rotations=1)),),
    )
    out = absorb(main, before, after, "a")
    assert counts(out) == {"a": 2, "b": 3}
    assert out.iteration == 7  # numbers the coordinator took stay taken
    assert out.usage == Tally(rotations=6, input_tokens=10)
    assert dict(out.agent_usage)["x"] == Tally(rotations=1)


def test_a_lane_shares_its_work_at_the_done_that_counts_one() -> None:
    assert shares("DONE", 1)
    assert not shares("DONE", 2)  # nothing of its own since 1/3: a change would have reset it
    assert not shares("DONE", 3)  # its own merge closes the lane
    assert not shares("CONTINUE", 0)  # unfinished work stays in the lane
    assert not shares("REFUSED", 0)  # the checks failed


# Every kind of character a spec file name may hold, and the pieces git refuses in a branch.
_PIECES = [*"aZ9_-. @{}~^:?*[]\\/\t", "..", ".lock", "@{", "//", "é", "ß", "☃", "\x7f", "-x", ".x"]


def _names(count: int) -> list[str]:
    """Spec paths made of random pieces (seeded: the same names every run), with the awkward
    ones every time."""
    import random

    rng = random.Random(28)
    found = [
        "specs/a..b.spec.md",
        "specs/with space.spec.md",
        "specs/x@{1}.spec.md",
        "specs/y.lock.spec.md",
        "specs/.hidden.spec.md",
        "specs/-dash.spec.md",
        "specs/.spec.md",
        "specs/" + "l" * 300 + ".spec.md",
        "specs/UPPER.spec.md",
        "PROMPT.md",
        "specs/.lock.md",
        "specs/a.lock",
        "specs/..spec.md",
        "specs/@.spec.md",
        "specs/a/b.c/d..e.spec.md",
    ]
    for _ in range(count):
        stem = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12)))
        stem = stem.replace("/", "_").replace("\\", "_")  # one file name, not a folder
        found.append(f"specs/{stem}.spec.md")
    return found


@pytest.mark.slow  # git's own word, through a shell
def test_lane_names_are_valid_git_branches_for_any_spec_file_name() -> None:
    import subprocess

    names = _names(150)
    for spec in names:
        name = lane_name(spec)
        assert is_lane_name(name), (spec, name)
        assert lane_branch(spec) == "ralph/" + name
        assert name == lane_name(spec)  # the same spec, the same lane: computed, never stored
    # git's own word, for every name at once: check-ref-format refuses the first bad one
    branches = [lane_branch(spec) for spec in names]
    script = (
        'for b in "$@"; do git check-ref-format --branch "$b" >/dev/null || echo "BAD $b"; done'
    )
    out = subprocess.run(
        ["sh", "-c", script, "sh", *branches], capture_output=True, text=True, check=False
    )
    assert "BAD" not in out.stdout, out.stdout
    assert len({lane_name(s) for s in names}) == len(set(names))  # one lane per spec path


def test_only_names_ralph_gives_are_lane_names() -> None:
    for name in [
        "..",
        "../victim",
        "/etc",
        "a..b-123456",
        "x-12345",
        "x-1234567",
        "X-123456",
        "-x-123456",
        "x.lock-123456",
        "",
        "a/b-123456",
        "a b-123456",
        "x-12345g",
    ]:
        assert not is_lane_name(name), name
    assert is_lane_name("api-3f9a1c") and is_lane_name("a_b-c-000000")
