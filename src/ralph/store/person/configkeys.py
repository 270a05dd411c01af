"""What each key of ralph.yaml means (by model and field), for the generated reference.

docs/reference/ is generated from these and the models (`python -m tests.docs_gen`); a
test fails when a key has no description here or one is left over."""

from __future__ import annotations

DESCRIPTIONS = {
    "AgentConfig.name": (
        "a built-in agent: claude, codex, gemini, cursor, opencode, pi, aider or demo (`agent: "
        "demo` is short for `agent: {name: demo}`)"
    ),
    "AgentConfig.command": (
        "any command (a string split like a POSIX shell, or a list never split); the prompt "
        "arrives on stdin"
    ),
    "AgentConfig.timeout": (
        "seconds per rotation (wall clock); the whole process tree is stopped after them"
    ),
    "AgentConfig.idle_timeout": "seconds without output before the agent is stopped",
    "AgentConfig.kill_grace": "seconds between SIGTERM and SIGKILL of the agent's process tree",
    "AgentConfig.env": (
        "extra environment for the agent (its values are redacted from every record)"
    ),
    "AgentConfig.model": "passed with the CLI's own model flag",
    "AgentConfig.models": (
        "a model per mode (implement, review, verify, judge), each falling back to `model:` "
        "(--model overrides them all)"
    ),
    "AgentConfig.args": "extra arguments for the CLI",
    "PoolConfig.rotation": (
        "round-robin takes the agents in turn; fallback always takes the first available one"
    ),
    "PoolConfig.fresh_eyes": "REVIEW prefers another agent than the last one to change files",
    "PoolConfig.backoff": "seconds a rate-limited agent sits out when it gave no reset time",
    "PoolConfig.max_failures": (
        "failed rotations in a row before an agent leaves the pool (null: never)"
    ),
    "PoolConfig.max_wait": "longest wait in seconds for a known reset time before exit 4",
    "PoolConfig.short_backoff": (
        "first retry delay in seconds after a short (per-minute) limit that named none; it "
        "doubles each time"
    ),
    "PoolConfig.short_retries": "short limits in a row retried before the ordinary back-off",
    "BreakerConfig.threshold": "failures in a row that open the circuit breaker",
    "BreakerConfig.cooldown": "seconds before an open breaker lets one trial rotation run",
    "LimitsConfig.pause_at": (
        "percent of a limit window (as the agent's CLI reports it) at which the agent is parked"
        " until the window resets; unset: run it until the CLI refuses"
    ),
    "ConvergenceConfig.patience": (
        "REVIEW rotations in a row that changed files before ralph escalates"
    ),
    "SandboxConfig.profile": (
        "off, auto (srt when it can start, else refuse), srt, bwrap or docker (`sandbox: srt` "
        "is short for `sandbox: {profile: srt}`)"
    ),
    "SandboxConfig.allow_hosts": "added to the pool's API hosts",
    "SandboxConfig.deny_read": "added to the usual secrets folders",
    "SandboxConfig.allow_write": "more writable folders",
    "SandboxConfig.image": "the docker profile's image (it must hold the agent CLIs)",
    "SandboxConfig.env": (
        "variables of ralph's environment passed into the sandbox by name (beyond the basic "
        "ones, the contract's RALPH_* names and each agent CLI's credentials; never one "
        "holding the webhook URL)"
    ),
    "TestsConfig.paths": (
        "globs of the files that are tests; unset: the usual names (test_*.py, *_test.go, ...)"
    ),
    "RalphConfig.agent": (
        "the agent every rotation runs (a pool of one); a name alone (`agent: demo`) is a "
        "built-in agent"
    ),
    "RalphConfig.agents": (
        "a pool of agents instead of `agent:` (giving both is an error); each entry takes the "
        "keys of `agent:`, a plain string is a built-in agent's name"
    ),
    "RalphConfig.pool": "how the agents of a pool take turns and what happens when one fails",
    "RalphConfig.max_iterations": "rotations a run may make",
    "RalphConfig.parallel": "specs worked on at once, each in a lane",
    "RalphConfig.max_cost": "USD this run may spend, as the agents report it",
    "RalphConfig.max_tokens": "tokens in + out this run may use",
    "RalphConfig.final_verification": "the independent verification once every spec is at 3/3",
    "RalphConfig.max_verification_failures": (
        "failed final verifications in a row before the run ends with exit 6"
    ),
    "RalphConfig.test_command": (
        "the project's tests, run by ralph itself in the final verification (shell syntax)"
    ),
    "RalphConfig.test_timeout": "seconds for test_command",
    "RalphConfig.breaker": (
        "the circuit breaker over failures in a row: `threshold` failures open it, `cooldown` "
        "seconds before one trial rotation"
    ),
    "RalphConfig.convergence": "when a spec whose REVIEW rotations keep changing files escalates",
    "RalphConfig.limits": "what ralph does with the limit windows the agents' CLIs report",
    "RalphConfig.on_escalation": (
        "what a headless run does when the breaker opens: abort, accept or continue"
    ),
    "RalphConfig.latency_budget_ms": (
        "milliseconds of ralph's own work per rotation; below 20 % left, optional work is skipped"
    ),
    "RalphConfig.sandbox": (
        "where every agent, judge and check command runs (`sandbox: srt` is short for `sandbox:"
        " {profile: srt}`)"
    ),
    "RalphConfig.tests": (
        "which files are the tests (`tests: [globs]` is short for `tests: {paths: [globs]}`)"
    ),
    "RalphConfig.plugins": "which of the person's installed plugins this project uses",
    "PluginsConfig.disable": "names of installed plugins this project leaves out",
    "PluginsConfig.require": (
        "names of plugins the run needs: it refuses to start (exit 1) when one is not loaded"
    ),
    "RalphConfig.notify": "who hears of a run: a webhook told when it ends or needs a person",
    "NotifyConfig.webhook": (
        "an http(s) URL POSTed JSON at the end of a run and on a question, an escalation or a "
        "wait for a quota window; `$NAME` reads it from that environment variable (a secret)"
    ),
}
