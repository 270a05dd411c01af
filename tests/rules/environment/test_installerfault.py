"""rules/environment/installerfault.py: an index that cannot be reached is not the agent's fault."""

from __future__ import annotations

from ralph.rules.environment.installerfault import halt_line, unreachable


def test_network_failures_are_unreachable() -> None:
    assert unreachable(
        "error: Failed to fetch: `http://127.0.0.1:9/simple/tinydep/` Caused by: Request failed "
        "after 3 retries Caused by: error sending request for url Caused by: tcp connect error: "
        "Connection refused (os error 111)"
    )
    assert unreachable("npm error code ENOTFOUND npm error request to http://x/y failed")
    assert unreachable("npm ERR! code EAI_AGAIN")
    # the folder of wheels the person's uv settings name is not there (uv 0.x's words)
    assert unreachable(
        "error: Failed to read `--find-links` directory: /var/tmp/trial/wheels "
        "Caused by: No such file or directory (os error 2)"
    )


def test_what_the_tree_asks_for_is_not() -> None:
    # controls: the index answered, the tree's request is what failed
    assert not unreachable(
        "No solution found when resolving dependencies: Because calcfix was not found in the "
        "package registry and you require calcfix, we can conclude that your requirements are "
        "unsatisfiable."
    )
    assert not unreachable("a declared package runs code at every Python start: fixer.pth")
    assert not unreachable("npm error code E404 npm error 404 Not Found - GET http://x/nope")


def test_the_line_says_whose_it_is() -> None:
    line = halt_line("error: Failed to fetch")
    assert "not counted against the agent" in line and "ralph doctor" in line
