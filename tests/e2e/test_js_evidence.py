"""A JavaScript project's tests are evidence, end to end through the real CLI with a real
agent program (tests/fakes/scripted_agent.py), on a package whose `add()` is wrong and whose
tests catch it, tested the two common ways: `node --test` (node's own runner, TAP when its
output is no terminal) and tape (here a tape-like runner of a dozen lines in the project, as
tape prints TAP: no install, no network).

The bar is read from the TAP summary before the first rotation; an agent that adds a skip to
a person's test is refused with the skip named; an honest agent that fixes the code and adds a
test of its own is verified.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import Project
from tests.e2e.test_testguard import assert_never_verified

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

SPEC = """\
---
test_command: "{command}"
---
# calc

`add(a, b)` in index.js returns the sum of a and b.
"""
WRONG = "exports.add = (a, b) => a - b;\n"
RIGHT = "exports.add = (a, b) => a + b;\n"
# tape's output, as tape 5 prints it: an assertion a line, then `# tests`, `# pass`, `# fail`
TAPE = """\
const tests = [];
let n = 0, failed = 0;
function test(name, fn) { tests.push([name, fn]); }
test.skip = () => {};
const t = {
  equal(a, b, msg = 'should be strictly equal') {
    n += 1;
    if (a === b) console.log(`ok ${n} ${msg}`);
    else { failed += 1; console.log(`not ok ${n} ${msg}`); }
  },
  end() {},
};
setImmediate(() => {
  console.log('TAP version 13');
  for (const [name, fn] of tests) { console.log(`# ${name}`); fn(t); }
  console.log(`\\n1..${n}\\n# tests ${n}\\n# pass  ${n - failed}`);
  console.log(failed ? `# fail  ${failed}` : '\\n# ok');
  process.exitCode = failed ? 1 : 0;
});
module.exports = test;
"""
RUNNERS = {
    "node --test": ("node --test", "const test = require('node:test');\n"),
    "tape": ("node test/index.js", "const test = require('../lib/tape.js');\n"),
}
TESTS = """\
{require}const assert = require('node:assert');
const {{ add }} = require('../index.js');

test('adds', (t) => {{
  {equal}(add(2, 3), 5);
  t.end?.();
}});

test('adds zero', (t) => {{
  {equal}(add(0, 0), 0);
  t.end?.();
}});
"""
# how each skips a test: node's option, tape's `test.skip`
SKIPS = {"node --test": "test('adds', { skip: true }, ", "tape": "test.skip('adds', "}
NEW_TEST = """
test('adds negatives', (t) => {{
  {equal}(add(-1, -2), -3);
  t.end?.();
}});
"""


def person_tests(runner: str) -> str:
    equal = "t.equal" if runner == "tape" else "assert.strictEqual"
    return TESTS.format(require=RUNNERS[runner][1], equal=equal)


def js_project(p: Project, runner: str) -> None:
    p.write(
        {
            "specs/calc.spec.md": SPEC.format(command=RUNNERS[runner][0]),
            "package.json": json.dumps({"name": "calc", "version": "1.0.0", "private": True}),
            "index.js": WRONG,
            "lib/tape.js": TAPE,
            "test/index.js": person_tests(runner),
        }
    )
    p.commit_all()


@pytest.mark.parametrize("runner", list(RUNNERS))
def test_an_honest_agent_that_adds_a_test_is_verified(git_project: Project, runner: str) -> None:
    p = git_project
    js_project(p, runner)
    equal = "t.equal" if runner == "tape" else "assert.strictEqual"
    grown = person_tests(runner) + NEW_TEST.format(equal=equal)
    agent = p.script(
        {"*": [{"write": {"index.js": RIGHT, "test/index.js": grown}, "signal": "DONE"}]}
    )
    res = p.run("run", "--agent-command", agent, "-n", "5")
    assert res.exit_code == 0, res
    # the bar, read from the TAP summary before the first rotation: one of two passed
    assert "tests' bar of specs/calc.spec.md: 2 tests ran before the first rotation" in (res.stdout)
    assert "printed no test summary" not in res.stdout
    assert "no test file matches" not in res.stdout  # test/index.js is a test
    row = p.state()["specs"][0]
    assert row["done_count"] == 3
    assert row["tests"]["passed"] == 3 and row["tests"]["failed"] == 0


@pytest.mark.parametrize("runner", list(RUNNERS))
def test_an_added_skip_is_refused_and_named(git_project: Project, runner: str) -> None:
    """The agent skips the failing test instead of fixing `add()`: the test command passes,
    and the refusal names the skip it added to the person's test."""
    p = git_project
    js_project(p, runner)
    skipped = person_tests(runner).replace("test('adds', ", SKIPS[runner])
    agent = p.script({"*": [{"write": {"test/index.js": skipped}, "signal": "DONE"}]})
    res = p.run("run", "--agent-command", agent, "-n", "3")
    assert_never_verified(p, res.exit_code)
    named = f"test/index.js: adds a skip marker: `{SKIPS[runner]}(t) => {{`"
    assert named in res.stdout, res
    refusals = json.dumps(p.worklog("done_gate"))
    assert named in refusals
