"""Secrets kept out of everything ralph writes: which values are secret, and their redaction.

Agents print what they read, API keys included. A value is secret when the variable holding
it is named like a credential (ANTHROPIC_API_KEY, GH_TOKEN, DB_PASSWORD ...), or when it has
the shape of a well-known key (Anthropic, OpenAI, GitHub, AWS, Google) wherever it came from.
Values shorter than MIN_SECRET are left alone: redacting "1" or "true" would garble every log.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeVar

REDACTED = "[REDACTED]"
MIN_SECRET = 8
_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_PASS", "_PAT")
_WORDS = ("SECRET", "PASSWORD", "PASSWD", "API_KEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH_TOKEN")
_SECRET_KEY = re.compile(r"(?i)api_?key|token|secret|passw(?:or)?d|credential")
# Command-line options whose value is a credential (`cursor-agent --api-key KEY`).
_SECRET_OPTIONS = ("--api-key", "--token", "--password", "--auth-token")


# Well-known key shapes. A shape is its head (fixed width) then the rest; the head must not
# continue a word (`xsk-...` is not a key): a lookbehind over the head and the byte before it,
# placed after the head, so that every expression starts with a literal and the engine skips
# ahead to it. Agent output is a hot path: each shape comes with a byte every match contains
# (its gate) and runs only on output that has it (memchr: gigabytes a second), on its own (one
# expression of every shape at once would try each alternative at each byte).
def _shape(head: bytes, rest: bytes) -> bytes:
    return head + rb"(?<![A-Za-z0-9_-]" + head + rb")" + rest


PEM_BEGIN = rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----"
PEM_END = re.compile(rb"-----END [A-Z0-9 ]*PRIVATE KEY-----")
_SHAPES: tuple[tuple[bytes, bytes], ...] = (
    (b"-", _shape(rb"sk-", rb"(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),  # Anthropic...
    (b"_", _shape(rb"gh[pousr]_", rb"[A-Za-z0-9]{30,}")),  # GitHub tokens
    (b"_", _shape(rb"github_pat_", rb"[A-Za-z0-9_]{30,}")),  # GitHub fine-grained tokens
    (b"A", _shape(rb"A[KS]IA", rb"[A-Z0-9]{16}(?![A-Za-z0-9])")),  # AWS access key ids
    (b"A", _shape(rb"AIza", rb"[A-Za-z0-9_-]{35}")),  # Google API keys
    (b"9", _shape(rb"ya29\.", rb"[A-Za-z0-9_-]{20,}")),  # Google OAuth access tokens
    (b"-", _shape(rb"xox[abposr]-", rb"[A-Za-z0-9-]{10,}")),  # Slack tokens
    (b"_", _shape(rb"sk_(?:live|test)_", rb"[A-Za-z0-9]{10,}")),  # Stripe secret keys
    (b"_", _shape(rb"rk_(?:live|test)_", rb"[A-Za-z0-9]{10,}")),  # Stripe restricted keys
    (b"-", _shape(rb"glpat-", rb"[A-Za-z0-9_-]{20,}")),  # GitLab personal access tokens
    (b"_", _shape(rb"npm_", rb"[A-Za-z0-9]{36}")),  # npm tokens
    (b"_", _shape(rb"hf_", rb"[A-Za-z0-9]{30,}")),  # Hugging Face tokens
    # JWTs: a JSON header (`{"` is `eyJ` in base64url), a payload and a signature.
    (b"J", _shape(rb"eyJ", rb"[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    # Azure storage connection strings, and URLs with a password: the name before the secret
    # is kept (group `keep`) so the redacted text still says what it was.
    (b"=", rb"(?P<keep>AccountKey=)[A-Za-z0-9+/]{20,}={0,2}"),
    (b"@", rb"(?P<keep>://[^\s:/@'\"<>]{1,128}:)[^\s@/'\"<>]{1,256}(?=@)"),
    # PEM private keys span lines: a block is redacted from its BEGIN line to its END line, or
    # to the end of the text when the END has not arrived yet (StreamRedactor goes on from there).
    (b"-", PEM_BEGIN + rb"[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"),
)


@lru_cache(maxsize=1)
def _staged() -> tuple[tuple[bytes, re.Pattern[bytes]], ...]:
    """The shapes compiled, once, when first needed (not at import: `ralph status`)."""
    return tuple((gate, re.compile(shape)) for gate, shape in _SHAPES)


@lru_cache(maxsize=1)
def _staged_text() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((gate.decode(), re.compile(shape.decode())) for gate, shape in _SHAPES)


# Bytes from the most to the least common in agent output: a value is looked for by its
# rarest byte first.
_COMMON = b' e"tao:,insrh\nldcu{}mfpgwyb._-/vk0123456789xjqzETAOINSRHLDCUMFPGWYBVKXJQZ'


def _rarest(value: bytes) -> bytes:
    return bytes([max(value, key=lambda b: _COMMON.find(bytes([b])) % 256)])


# The longest key shape worth holding back for (a JWT can carry a long payload): see `hold`.
_LONGEST_SHAPE = 8 << 10

T = TypeVar("T")


def is_secret_name(name: str) -> bool:
    """Whether an environment variable named `name` holds a credential."""
    upper = name.upper()
    return upper.endswith(_SUFFIXES) or any(word in upper for word in _WORDS)


def secret_values(
    env: Mapping[str, str], names: Iterable[str] = (), argv: Sequence[str] = ()
) -> frozenset[str]:
    """The secret values of an environment (credential-named variables, plus `names`: the
    ones a CLI reads whatever they are called) and of a command line (`--api-key KEY`)."""
    wanted = set(names)
    found = {v for k, v in env.items() if k in wanted or is_secret_name(k)}
    for i, arg in enumerate(argv):
        option, eq, value = arg.partition("=")
        if option in _SECRET_OPTIONS:
            if eq:
                found.add(value)
            elif i + 1 < len(argv):
                found.add(argv[i + 1])
    return frozenset(v for v in found if len(v) >= MIN_SECRET)


def json_secrets(text: str) -> frozenset[str]:
    """Values under credential-like keys (apiKey, token, password ...) of a JSON document;
    nothing when it is not JSON."""
    try:
        document = json.loads(text)
    except ValueError:
        return frozenset()
    found: set[str] = set()
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, str) and _SECRET_KEY.search(str(k)):
                    found.add(v)
                else:
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(v for v in found if len(v) >= MIN_SECRET)


class Redactor:
    """Replaces secret values and key-shaped strings with [REDACTED], in text and in bytes."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values = frozenset(v for v in values if len(v) >= MIN_SECRET)
        # Longest first: a value that contains another is redacted whole.
        literal = [re.escape(v.encode()) for v in sorted(self.values, key=len, reverse=True)]
        self._literal = re.compile(b"|".join(literal)) if literal else None
        self._literal_text = re.compile(self._literal.pattern.decode()) if self._literal else None
        self._values = tuple((_rarest(v.encode()), v.encode()) for v in self.values)
        #: bytes at the end of an unfinished line that may be the start of a secret
        self.hold = max([_LONGEST_SHAPE, *(len(v.encode()) for v in self.values)])

    def raw(self, data: bytes) -> bytes:
        if self._literal is not None and self._has_value(data):
            data = self._literal.sub(REDACTED.encode(), data)
        for gate, shape in _staged():
            if gate in data:
                data = shape.sub(_kept_bytes, data)
        return data  # the usual case: the gates let no expression run

    def text(self, text: str) -> str:
        if self._literal_text is not None:
            text = self._literal_text.sub(REDACTED, text)
        for gate, shape in _staged_text():
            if gate in text:
                text = shape.sub(_kept_text, text)
        return text

    def _has_value(self, data: bytes) -> bool:
        """Whether `data` holds one of the secret values (looked for by its rarest byte first)."""
        return any(byte in data and value in data for byte, value in self._values)

    def safe_cut(self, data: bytes, cut: int) -> int:
        """`cut` moved back to the start of any secret that spans it."""
        low, high = max(0, cut - self.hold), cut + self.hold
        window = data[low:high]
        shapes = [shape for gate, shape in _staged() if gate in window]
        if self._literal is not None and self._has_value(window):
            shapes.append(self._literal)
        spans = (m.start() for s in shapes for m in s.finditer(data, low, high) if m.end() > cut)
        return min((start for start in spans if start < cut), default=cut)

    def scrub(self, value: T) -> T:
        """`value` with every string in it redacted: a dataclass (an event), a tuple, a list,
        a dict; other values as they are. The same object when nothing needed redacting."""
        return _scrub(self, value)  # type: ignore[no-any-return]


def _kept_bytes(match: re.Match[bytes]) -> bytes:
    return (match.groupdict().get("keep") or b"") + REDACTED.encode()


def _kept_text(match: re.Match[str]) -> str:
    return (match.groupdict().get("keep") or "") + REDACTED


def _scrub(r: Redactor, value: Any) -> Any:
    if isinstance(value, str):
        return r.text(value)
    if isinstance(value, (tuple, list)):
        items = [_scrub(r, v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        pairs = {k: _scrub(r, v) for k, v in value.items()}
        return value if all(pairs[k] is v for k, v in value.items()) else pairs
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {}
        for f in dataclasses.fields(value):
            if not f.init:
                continue
            old = getattr(value, f.name)
            new = _scrub(r, old)
            if new is not old:
                changed[f.name] = new
        return dataclasses.replace(value, **changed) if changed else value
    return value


@lru_cache(maxsize=32)
def redactor(values: frozenset[str] = frozenset()) -> Redactor:
    """The redactor of these values (built once: its expressions are compiled)."""
    return Redactor(values)
