"""End to end: the REAL agent CLIs, driven by ralph, against the scripted model server.

The CLIs are installed by `make test` (tests/install_agents.sh, npm) into a cache folder outside
the repository, RALPH_E2E_DIR (default ~/.cache/ralph-e2e); the model server is the project's
own (tests/model/, the `mock_llm` fixture of tests/conftest.py). Everything stays on 127.0.0.1:
the API base URL points at the server, and so do HTTPS_PROXY/HTTP_PROXY, so any other host a
CLI tries is refused locally. A test whose CLI is missing is skipped and says why.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ralph.agents.registry import make_agent
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentResult
from ralph.process.request import OPEN
from ralph.rules.text.signals import parse_signal
from tests.conftest import Project
from tests.model import faults
from tests.model.server import ModelServer

REPO = Path(__file__).resolve().parents[2]
# Resolved at import, before the autouse fixture points HOME at a temporary folder.
E2E_DIR = Path(os.environ.get("RALPH_E2E_DIR", Path.home() / ".cache" / "ralph-e2e"))
BIN = E2E_DIR / "node_modules" / ".bin"
AIDER_BIN = E2E_DIR / "aider-venv" / "bin"  # aider comes from PyPI, into a venv of its own
CLIS = {
    "claude": BIN / "claude",
    "codex": BIN / "codex",
    "gemini": BIN / "gemini",
    "pi": BIN / "pi",
    "opencode": BIN / "opencode",
    "aider": AIDER_BIN / "aider",
}
ROTATION_TIMEOUT = 120.0  # seconds; a real CLI against the local mock takes 1-20

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="the CLIs' npm shims need a POSIX shell"),
]


def need(agent: str) -> Path:
    """The CLI's executable, or skip the test saying how to get it."""
    exe = CLIS[agent]
    if not exe.exists():
        pytest.skip(
            f"{agent} CLI not installed in {E2E_DIR}: `make test` installs every agent CLI the "
            "registries carry there, pinned (tests/install_agents.sh with npm, "
            "tests/install_aider.sh with python3 -m venv); it could not here"
        )
    return exe


@dataclass
class Setup:
    """What a real CLI needs to talk to the mock: environment, extra args, model."""

    env: dict[str, str] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    model: str | None = None


def setup_for(agent: str, mock: ModelServer, home: Path, monkeypatch: pytest.MonkeyPatch) -> Setup:
    """Point the CLI at the mock, in a private HOME; trap every other host."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    for key in list(os.environ):
        if key.startswith(("ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_")):
            monkeypatch.delenv(key)
    for key, value in {
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "HTTPS_PROXY": mock.url,
        "HTTP_PROXY": mock.url,
        "https_proxy": mock.url,
        "http_proxy": mock.url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }.items():
        monkeypatch.setenv(key, value)
    if agent == "claude":
        env = {
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-ant-mock",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_MAX_RETRIES": "1",
            "IS_SANDBOX": "1",  # these tests may run as root
        }
        return Setup(env)
    if agent == "codex":
        (home / ".codex").mkdir(exist_ok=True)
        provider = (
            f'{{name="mock",base_url="{mock.url}/v1",env_key="MOCK_API_KEY",'
            'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
        )
        args = ["-c", "model_provider=mock", "-c", f"model_providers.mock={provider}"]
        args += ["--disable", "plugins", "--disable", "apps"]
        return Setup({"CODEX_HOME": str(home / ".codex"), "MOCK_API_KEY": "mock"}, args, "gpt-mock")
    if agent == "gemini":
        (home / ".gemini").mkdir(exist_ok=True)
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        env = {"GEMINI_API_KEY": "mock", "GOOGLE_GEMINI_BASE_URL": mock.url}
        return Setup(env, [], "gemini-2.5-pro")
    if agent == "pi":
        agent_dir = home / ".pi" / "agent"
        agent_dir.mkdir(parents=True, exist_ok=True)
        model = {"id": "claude-mock", "contextWindow": 200000, "maxTokens": 8192}
        providers = {
            "mock": {
                "baseUrl": mock.url,
                "api": "anthropic-messages",
                "apiKey": "mock",
                "models": [model],
            }
        }
        (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
        return Setup({"PI_OFFLINE": "1"}, ["--provider", "mock"], "claude-mock")
    if agent == "aider":  # litellm -> the Anthropic Messages API; "whole" edits, no tools
        env = {
            "ANTHROPIC_API_KEY": "mock",
            "ANTHROPIC_API_BASE": mock.url,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        args = ["--edit-format", "whole", "--no-git", "--no-show-model-warnings", "hello.txt"]
        return Setup(env, args, "anthropic/claude-mock")
    assert agent == "opencode"
    config = {
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "mock": {
                "npm": "@ai-sdk/anthropic",
                "name": "Mock",
                "options": {"baseURL": mock.url + "/v1", "apiKey": "mock"},
                "models": {
                    "claude-mock": {"name": "Mock", "limit": {"context": 200000, "output": 8192}}
                },
            }
        },
    }
    env = {"OPENCODE_CONFIG_CONTENT": json.dumps(config), "OPENCODE_DISABLE_MODELS_FETCH": "1"}
    return Setup(env, [], "mock/claude-mock")


def put_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.pathsep.join((str(BIN), str(AIDER_BIN), os.environ.get("PATH", "")))
    monkeypatch.setenv("PATH", path)


def one_rotation(agent: str, setup: Setup, root: Path, prompt: str) -> AgentResult:
    """One rotation through the adapter, as the loop runs it."""
    built = make_agent(agent, None, setup.env, setup.model, setup.args)
    prompt_file = root.parent / f"{root.name}-prompt.md"
    prompt_file.write_text(prompt)
    request = AgentRequest(
        prompt=prompt,
        prompt_file=prompt_file,
        root=root,
        spec="PROMPT.md",
        mode="IMPLEMENT",
        iteration=1,
        state_dir=root / ".ralph",
        handoff_file=root / "handoff.md",
        timeout=ROTATION_TIMEOUT,
        idle_timeout=ROTATION_TIMEOUT,
        confined=OPEN,
    )
    return built.run(request, lambda stream, lines: None)


def ralph_yaml(agent: str, setup: Setup) -> str:
    config = {
        "agent": {
            "name": agent,
            "env": setup.env,
            "args": setup.args,
            "timeout": ROTATION_TIMEOUT,
            "idle_timeout": ROTATION_TIMEOUT,
            **({"model": setup.model} if setup.model else {}),
        },
        "max_iterations": 8,
        # the mock LLM's scripts answer the spec rotations; a final verification would need a
        # VERIFY_PASS of its own (tests/e2e/test_final_verification.py covers that phase)
        "final_verification": False,
    }
    return json.dumps(config)  # JSON is YAML


def write_step(agent: str, name: str, content: str) -> dict[str, Any]:
    if agent == "codex":
        command = f"printf '{content}\\n' > {{cwd}}/{name}"
        return {"tool_use": {"name": "exec_command", "input": {"cmd": command}}}
    return {
        "tool_use": {
            "name": "Write",
            "input": {"file_path": f"{{cwd}}/{name}", "content": f"{content}\n"},
        }
    }


def full_run_script(agent: str) -> dict[str, Any]:
    """IMPLEMENT writes a file and continues, then writes another and says DONE (1/3), then two
    REVIEW rotations change nothing and say DONE (2/3, 3/3)."""
    return {
        "rotations": [
            {
                "steps": [
                    {"text": "Starting.", **write_step(agent, "progress.txt", "step 1")},
                    {"text": "Part one done. <ralph>CONTINUE</ralph>"},
                ]
            },
            {
                "steps": [
                    {
                        "text": "Finishing.",
                        **write_step(agent, "hello.txt", "hello from the real CLI"),
                    },
                    {
                        "text": "Implemented. <ralph>DONE</ralph>",
                        "usage": {"input_tokens": 5000, "output_tokens": 300},
                    },
                ]
            },
            {"steps": [{"text": "Reviewed: all good. <ralph>DONE</ralph>"}]},
            {"steps": [{"text": "Verified again. <ralph>DONE</ralph>"}]},
        ],
        "exhausted_rotations": "repeat_last",
    }


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_a_full_run_reaches_three_of_three_with_real_files(
    agent: str,
    git_project: Project,
    tmp_path: Path,
    mock_llm: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need(agent)
    mock = mock_llm(full_run_script(agent), git_project.root)
    setup = setup_for(agent, mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    git_project.write(
        {"PROMPT.md": "# Goal\n\nCreate hello.txt.\n", "ralph.yaml": ralph_yaml(agent, setup)}
    )
    git_project.commit_all()
    result = git_project.run_subprocess("run", "--plain", timeout=600)
    assert result.exit_code == 0, result
    assert git_project.counts() == {"PROMPT.md": 3}
    assert (git_project.root / "hello.txt").read_text() == "hello from the real CLI\n"
    assert (git_project.root / "progress.txt").read_text() == "step 1\n"
    ends = git_project.rotation_ends()
    assert [e["signal"] for e in ends] == ["CONTINUE", "DONE", "DONE", "DONE"]
    assert [e["done_count"] for e in ends] == [0, 1, 2, 3]
    current = (git_project.root / ".ralph" / "current.log").read_text()
    assert "Verified again. <ralph>DONE</ralph>" in current
    assert '{"type":' not in current  # the readable rendering, not the raw stream
    history = sorted((git_project.root / ".ralph" / "history").glob("*/00[2].log"))
    assert history and '"type":' in history[0].read_text()  # the raw stream
    assert not [r for r in mock.requests() if r.get("kind") == "blocked_egress"]


def test_claude_usage_and_cost_come_from_the_real_result(
    tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("claude")
    root = tmp_path / "work"
    root.mkdir()
    script = {
        "steps": [
            {
                "text": "Done. <ralph>DONE</ralph>",
                "usage": {"input_tokens": 1200, "output_tokens": 80},
            }
        ]
    }
    mock = mock_llm(script, root)
    setup = setup_for("claude", mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    result = one_rotation("claude", setup, root, "Say DONE.")
    assert result.failure is None, result.process.stderr_tail
    assert parse_signal(result.output_text, "Say DONE.", result.final_text) == "DONE"
    assert result.usage is not None
    assert result.usage.input_tokens >= 1200 and result.usage.output_tokens > 0
    assert result.usage.cost_usd is not None and result.usage.cost_usd > 0


@pytest.mark.parametrize(
    ("agent", "script", "auth", "kind", "resets_at"),
    [
        ("claude", faults.SESSION_LIMIT, "oauth", "rate_limit", float(faults.FAR_RESET)),
        ("claude", faults.PROMPT_TOO_LONG, "apikey", "overflow", None),
        ("claude", faults.BAD_KEY, "apikey", "auth", None),
        ("codex", faults.CODEX_USAGE_LIMIT, "", "rate_limit", "local 2030-01-01"),
    ],
    ids=["claude-rate-limit", "claude-overflow", "claude-auth", "codex-usage-limit"],
)
def test_faults_from_the_real_cli(
    agent: str,
    script: dict[str, Any],
    auth: str,
    kind: str,
    resets_at: float | str | None,
    tmp_path: Path,
    mock_llm: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from datetime import datetime

    need(agent)
    root = tmp_path / "work"
    root.mkdir()
    mock = mock_llm(script, root)
    setup = setup_for(agent, mock, tmp_path / "home", monkeypatch)
    if auth == "oauth":  # the subscription path: rate_limit_event and "You've hit your ..."
        del setup.env["ANTHROPIC_API_KEY"]
        setup.env["CLAUDE_CODE_OAUTH_TOKEN"] = "sk-ant-oat01-mock"
    put_on_path(monkeypatch)
    result = one_rotation(agent, setup, root, "Do the work.")
    assert result.failure is not None
    assert result.fault is not None, (result.error, result.process.stderr_tail)
    assert result.fault.kind == kind
    if resets_at == "local 2030-01-01":
        # "try again at ... 12:00 AM" names a minute, not a second: the limit lifts at its end
        resets_at = datetime(2030, 1, 1, 0, 1).timestamp()
    assert result.fault.resets_at == resets_at


@pytest.mark.parametrize("agent", ["gemini", "pi", "opencode"])
def test_other_clis_write_a_file_and_signal_done(
    agent: str, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(agent)
    root = tmp_path / "work"
    root.mkdir()
    tool = {
        "gemini": {
            "name": "write_file",
            "input": {"file_path": "{cwd}/hello.txt", "content": "hi\n"},
        },
        "pi": {"name": "write", "input": {"path": "hello.txt", "content": "hi\n"}},
        "opencode": {"name": "write", "input": {"filePath": "{cwd}/hello.txt", "content": "hi\n"}},
    }[agent]
    script = {
        "rotations": [
            {
                "steps": [
                    {"text": "Writing.", "tool_use": tool},
                    {"text": "Wrote it. <ralph>DONE</ralph>"},
                ]
            }
        ]
    }
    mock = mock_llm(script, root)
    setup = setup_for(agent, mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    prompt = "# ralph rotation\n\n- never a tag here: <ralph>STUCK</ralph>\nWrite hello.txt."
    result = one_rotation(agent, setup, root, prompt)
    assert result.failure is None, (result.error, result.process.stderr_tail[-2000:])
    assert (root / "hello.txt").read_text() == "hi\n"
    assert parse_signal(result.output_text, prompt, result.final_text) == "DONE"
    assert result.usage is not None and result.usage.input_tokens > 0


def test_aider_writes_a_file_and_signals_done(
    tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aider (PyPI) through its adapter: a whole-file edit, the signal, and its token line."""
    need("aider")
    root = tmp_path / "work"
    root.mkdir()
    reply = "I'll create the file.\n\nhello.txt\n```\nhi\n```\n\nDone. <ralph>DONE</ralph>"
    mock = mock_llm(
        {"all_requests_main": True, "step_by": "count", "steps": [{"text": reply}]}, root
    )
    setup = setup_for("aider", mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    prompt = "# ralph rotation\n\nWrite hello.txt."
    result = one_rotation("aider", setup, root, prompt)
    assert result.failure is None, (result.error, result.process.stdout_tail[-2000:])
    assert (root / "hello.txt").read_text() == "hi\n"
    assert parse_signal(result.output_text, prompt, result.final_text) == "DONE"
    assert result.usage is not None and result.usage.input_tokens > 0


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "pi", "opencode"])
def test_a_prompt_beyond_the_argument_limit_reaches_the_model_whole(
    agent: str, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux refuses one argument over 128 KiB: the prompt goes through stdin or a file, and
    the model still gets all of it (the marker at its very end)."""
    need(agent)
    root = tmp_path / "work"
    root.mkdir()
    script = {"rotations": [{"steps": [{"text": "Read it all. <ralph>DONE</ralph>"}]}]}
    mock = mock_llm(script, root)
    setup = setup_for(agent, mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    prompt = "# ralph rotation\n\n" + "Background line, nothing to do.\n" * 6000
    prompt += "The secret word is PINEAPPLE-7731.\n"
    assert len(prompt.encode()) > 150_000
    result = one_rotation(agent, setup, root, prompt)
    assert result.failure is None, (result.error, result.output_text[-3000:])
    assert parse_signal(result.output_text, prompt, result.final_text) == "DONE"
    seen = mock.seen()
    if agent == "gemini":  # told where the prompt file is, for the model to read it
        assert str(root.parent / f"{root.name}-prompt.md") in seen
    else:
        assert "PINEAPPLE-7731" in seen  # the model saw the end of the prompt
