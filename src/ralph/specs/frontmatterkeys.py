"""What each key of a spec's front matter means (by model and field), for the generated reference.

docs/reference/ is generated from these and the models (`python -m tests.docs_gen`); a
test fails when a key has no description here or one is left over."""

from __future__ import annotations

DESCRIPTIONS = {
    "ExternalConfig.command": (
        "the command, run by /bin/sh -c (cmd.exe on Windows) with RALPH_SPEC and RALPH_CHECK set"
    ),
    "ExternalConfig.success_exit_code": "the exit code that passes",
    "ExternalConfig.output_contains": "text stdout + stderr must contain",
    "ExternalConfig.output_not_contains": "text stdout + stderr must not contain",
    "ExternalConfig.timeout": (
        "seconds; its whole process tree is killed after them and the check fails"
    ),
    "ExternalConfig.working_dir": "relative to the project root (never outside it)",
    "ExternalConfig.report": "a JUnit XML file the command writes, read for the test counts",
    "SemanticConfig.check_for": (
        'the criteria the judge checks: a list, or "{{acceptance_criteria}}" for the spec\'s '
        "acceptance criteria"
    ),
    "SemanticConfig.negative_patterns": (
        "text that, found in the agent's output, fails the check before any judge runs"
    ),
    "SemanticConfig.model": "passed to the judge as RALPH_JUDGE_MODEL",
    "SemanticConfig.timeout": "seconds the judge may take",
    "StringMatchConfig.promise": (
        "the X of `<promise>X</promise>` the agent must print (role criteria give theirs as "
        "`promise:`)"
    ),
    "RevertConfig.command": (
        "the test command run on the code as it is and as it was when the run began; unset: "
        "the spec's test_command"
    ),
    "RevertConfig.timeout": "seconds each of its two test runs may take",
    "RevertConfig.report": (
        "the JUnit XML file the command writes, read for each case's outcome (a runner other "
        "than pytest); unset: ralph asks pytest for one"
    ),
    "MultiStageConfig.stages": "named checks (external, semantic or string_match) run in order",
    "MultiStageConfig.require_all": "stop at the first failing required stage",
    "MutationConfig.command": (
        "the tests run against each mutant; unset: the spec's test_command (one of them is needed)"
    ),
    "MutationConfig.min_score": (
        "the share of mutants the tests must kill (0 to 1); below it the DONE is refused"
    ),
    "MutationConfig.max_mutants": (
        "at most this many mutants, chosen spread over the changed files and lines"
    ),
    "MutationConfig.timeout": (
        "seconds for the whole check (the unmutated run included); a mutant left untried counts "
        "as surviving"
    ),
    "ExternalCheck.method": (
        "how the check is judged: external, semantic, string_match, multi_stage, mutation or "
        "revert (not a stage's); `config:` holds that method's keys (below)"
    ),
    "_CheckBase.name": "the check's name in refusals, the worklog and the display",
    "_CheckBase.required": "false: a failure only warns",
    "_CheckBase.cache": (
        "false: run again even when the tree is unchanged (a check that reads git-ignored files)"
    ),
    "ExternalRole.verification_method": (
        "how the promise is verified: string_match (the default), external, semantic or "
        "multi_stage; `verification_config:` holds that method's keys (below)"
    ),
    "_RoleBase.promise": (
        "the X of `<promise>X</promise>` the agent must print before its method is checked"
    ),
    "_RoleBase.description": "what the promise means",
    "_RoleBase.max_iterations": (
        "caps the rotations this role's criteria apply to (coder: IMPLEMENT, reviewer: REVIEW, "
        "tester and qa: all)"
    ),
    "TestsConfig.paths": (
        "globs of the files that are tests; unset: the usual names (test_*.py, *_test.go, ...)"
    ),
    "TestsConfig.may_change": (
        "true: the guard against weakened tests is off for this spec, and what its rotations "
        "change of the tests becomes the baseline"
    ),
    "SpecMeta.task": "a title (the verification-phase seed's `task:`)",
    "SpecMeta.outcome": "what is true once the spec is done",
    "SpecMeta.acceptance_criteria": (
        "the criteria a semantic check's judge and the final verification check"
    ),
    "SpecMeta.completion_criteria": "the verification-phase seed's name for acceptance_criteria",
    "SpecMeta.test_command": "a command that must exit 0 for a DONE to count",
    "SpecMeta.test_timeout": "seconds for test_command",
    "SpecMeta.test_report": "a JUnit XML file the test command writes, read for the test counts",
    "SpecMeta.max_iterations": "a hard stop for this spec: its rotations until `ralph reset`",
    "SpecMeta.verification": (
        "standard: the plain counter; strict: a DONE also needs every acceptance checkbox "
        "ticked on disk"
    ),
    "SpecMeta.checks": (
        "checks a DONE must pass: string_match, external, semantic, multi_stage, mutation"
    ),
    "SpecMeta.parallel_checks": "run independent external checks at the same time",
    "SpecMeta.coder": "criteria that gate a DONE in IMPLEMENT mode",
    "SpecMeta.reviewer": "criteria that gate a DONE in REVIEW mode",
    "SpecMeta.tester": "criteria that gate every DONE",
    "SpecMeta.qa": "criteria that gate every DONE",
    "SpecMeta.tests": (
        "which files are this spec's tests, and whether its agent may change them (`tests: "
        "[globs]` is short for `tests: {paths: [globs]}`)"
    ),
}
