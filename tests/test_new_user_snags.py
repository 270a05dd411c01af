"""What a new user met in the second hour (issue 28's snags), each through the real CLI."""

from __future__ import annotations

import json

from tests.conftest import Project

BROKEN = "---\ntest_command: [unclosed\n---\n# a\n"


def test_status_shows_a_spec_with_broken_front_matter_as_the_error(project: Project) -> None:
    project.write({"specs/a.spec.md": BROKEN, "specs/b.spec.md": "# b\n"})
    res = project.run("status")
    assert res.exit_code == 0, res
    rows = {line.split()[0]: line for line in res.stdout.splitlines() if line.startswith("specs/")}
    assert "ERROR: front matter" in rows["specs/a.spec.md"]
    assert "ERROR" not in rows["specs/b.spec.md"]  # the honest spec reads as ever
    errors = [line for line in res.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith("error: specs/a.spec.md: "), res.stdout
    assert "`ralph run` refuses to start until then" in errors[0]
    data = json.loads(project.run("status", "--json").stdout)
    specs = {s["path"]: s for s in data["specs"]}
    assert specs["specs/a.spec.md"]["error"].startswith("specs/a.spec.md: ")
    assert specs["specs/a.spec.md"]["needs_work"] is True
    assert "error" not in specs["specs/b.spec.md"]
    run = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "--headless")
    assert run.exit_code == 1  # the same spec `ralph run` refuses, by the same words
    assert errors[0].removeprefix("error: ").split(" (")[0] in run.stderr
