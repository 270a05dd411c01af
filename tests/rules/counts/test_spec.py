"""rules/counts/spec.py: a spec's slug is unique per path, PROMPT.md and RALPH_TASK.md sort first,
and `ralph init`'s template is told from a person's words."""

from __future__ import annotations

from ralph.rules.counts.spec import PROMPT_TEMPLATE, is_untouched_template, sort_key, spec_slug


def test_two_specs_of_one_name_in_two_folders_have_two_slugs() -> None:
    a, b = spec_slug("specs/a.spec.md"), spec_slug("other/a.spec.md")
    assert a != b
    assert a.startswith("a.spec-") and len(a) == len("a.spec-") + 6
    assert spec_slug("specs/a.spec.md") == a  # the same path, the same slug every time


def test_the_root_prompts_slug_sorts_first() -> None:
    assert spec_slug("PROMPT.md").startswith("000-prompt-")
    assert spec_slug("RALPH_TASK.md").startswith("000-ralph-task-")
    paths = ["specs/b.spec.md", ".ralph/specs/a.spec.md", "RALPH_TASK.md", "PROMPT.md"]
    assert sorted(paths, key=sort_key) == [
        "PROMPT.md",
        "RALPH_TASK.md",
        ".ralph/specs/a.spec.md",
        "specs/b.spec.md",
    ]


def test_the_untouched_template_is_known_by_its_words_not_its_line_endings() -> None:
    assert is_untouched_template(PROMPT_TEMPLATE)
    assert is_untouched_template("\n" + PROMPT_TEMPLATE.replace("\n", "\r\n") + "\n\n")
    # the control: one word of a person's makes it their spec
    assert not is_untouched_template(PROMPT_TEMPLATE + "Make the tests pass.\n")
