"""What of ralph's environment a process of a run gets (an agent, a judge, a check command).

Inside a sandbox: a short list, by name. The variables any program needs at a terminal, the
contract's RALPH_* names (never a RALPH_* wildcard: RALPH_WEBHOOK_URL is ralph's, not the
agent's), the process's own (its CLI's credentials, endpoints and config folders: its
`passes`) and those ralph.yaml's `sandbox.env` names. Without a sandbox the agent runs as the
person, reads what they can read (ralph's own environment included, in /proc), so a list would
hold nothing back: it gets ralph's environment less ralph's own variables. In both, a variable
holding a withheld value (the webhook URL, whatever the variable's name) is never handed on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# What any program needs to run as the user would at a terminal: nothing secret.
BASIC_ENV = frozenset(
    {
        *("PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TERM", "COLORTERM", "TMPDIR"),
        *("LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR"),
        # where certificates are (a company's proxy), and the proxy itself
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"),
        *("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"),
        # where toolchains are, so check commands and builds find them
        *("VIRTUAL_ENV", "PYTHONPATH", "CONDA_PREFIX", "NODE_PATH", "NVM_DIR", "JAVA_HOME"),
        *("GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME"),
    }
)
BASIC_PREFIXES = ("LC_", "XDG_")
# ralph's own variables a process is handed: the custom-agent contract, what a check or a
# judge is told. The run's process marks are added (and passed) where they are set.
RALPH_NAMES = frozenset(
    {
        *("RALPH_PROMPT_FILE", "RALPH_SPEC", "RALPH_MODE", "RALPH_ITERATION", "RALPH_STATE_DIR"),
        *("RALPH_HANDOFF_FILE", "RALPH_SPECS", "RALPH_MODEL", "RALPH_JUDGE_MODEL", "RALPH_CHECK"),
    }
)


@dataclass(frozen=True)
class AllowList:
    """One run's rules for what it hands the processes it starts."""

    names: frozenset[str] = frozenset()  # ralph.yaml's `sandbox.env`: passed on by name
    withheld: tuple[str, ...] = ()  # values no process gets under any name (the webhook URL)

    def boxed(self, env: Mapping[str, str], passes: frozenset[str] = frozenset()) -> dict[str, str]:
        """What a sandboxed process gets of `env` (`passes`: its own names)."""
        named = self.names | passes | RALPH_NAMES
        return {
            k: v
            for k, v in env.items()
            if (k in BASIC_ENV or k in named or k.startswith(BASIC_PREFIXES)) and self._kept(v)
        }

    def open(self, env: Mapping[str, str], passes: frozenset[str] = frozenset()) -> dict[str, str]:
        """What a process without a sandbox gets of `env`: all but ralph's own variables."""
        named = self.names | passes | RALPH_NAMES
        return {
            k: v
            for k, v in env.items()
            if (not k.startswith("RALPH_") or k in named) and self._kept(v)
        }

    def _kept(self, value: str) -> bool:
        return not any(w and w in value for w in self.withheld)
