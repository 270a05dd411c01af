"""process/allowlist.py: what of ralph's environment a process of a run gets, sandboxed or
not; a withheld value under no name at all.

What a sandbox's command line hands on (wrap) is in tests/process/test_sandbox.py."""

from __future__ import annotations

from ralph.process.allowlist import RALPH_NAMES, AllowList


def test_a_withheld_value_reaches_no_process_under_any_name_sandboxed_or_not() -> None:
    url = "https://hooks.slack.com/services/T0/B0/secret"
    env = {"PATH": "/bin", "HOOK": url, "MINE": f"see {url}", "RALPH_SPEC": "a", "OWN": "x"}
    allow = AllowList(frozenset({"HOOK", "MINE"}), withheld=(url,))
    assert allow.boxed(env, frozenset({"OWN"})) == {"PATH": "/bin", "RALPH_SPEC": "a", "OWN": "x"}
    assert allow.open(env) == {"PATH": "/bin", "RALPH_SPEC": "a", "OWN": "x"}


def test_without_a_sandbox_a_process_gets_all_but_ralphs_own_variables() -> None:
    env = {"AWS_SECRET_ACCESS_KEY": "s", "RALPH_WEBHOOK_URL": "u", "RALPH_MODE": "REVIEW"}
    got = AllowList().open(env, frozenset({"RALPH_DEMO_DELAY"}))
    assert got == {"AWS_SECRET_ACCESS_KEY": "s", "RALPH_MODE": "REVIEW"}


def test_a_sandboxed_process_gets_a_short_list_by_name() -> None:
    env = {
        "PATH": "/bin",
        "LC_ALL": "C",
        "XDG_CONFIG_HOME": "/c",
        "AWS_SECRET_ACCESS_KEY": "s",
        "FROM_YAML": "y",
        "OWN_KEY": "k",
        "RALPH_SPEC": "a",
        "RALPH_WEBHOOK_URL": "u",
    }
    got = AllowList(frozenset({"FROM_YAML"})).boxed(env, frozenset({"OWN_KEY"}))
    assert got == {
        "PATH": "/bin",
        "LC_ALL": "C",
        "XDG_CONFIG_HOME": "/c",
        "FROM_YAML": "y",
        "OWN_KEY": "k",
        "RALPH_SPEC": "a",
    }
    assert all(name.startswith("RALPH_") for name in RALPH_NAMES)
    assert "RALPH_WEBHOOK_URL" not in RALPH_NAMES


def test_an_empty_withheld_value_withholds_nothing() -> None:
    env = {"PATH": "/bin", "RALPH_MODE": "IMPLEMENT"}
    assert AllowList(withheld=("",)).boxed(env) == env
    assert AllowList(withheld=("",)).open(env) == env
