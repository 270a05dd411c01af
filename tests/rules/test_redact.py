"""The redaction rules: which values are secret, key shapes, streamed output cut anywhere."""

from __future__ import annotations

import random

import pytest

from ralph.agents.credentials import agent_secrets
from ralph.rules.redact import (
    REDACTED,
    Redactor,
    StreamRedactor,
    is_secret_name,
    json_secrets,
    redactor,
    secret_values,
)
from ralph.run.events import Notice, RotationEnded, SpecRow

KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.mark.parametrize(
    "name",
    ["ANTHROPIC_API_KEY", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "client_secret",
     "MY_PASSWD", "SECRET_KEY_BASE", "NPM_AUTH_TOKEN"],
)  # fmt: skip
def test_credential_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "KEYBOARD"])
def test_other_names(name: str) -> None:
    assert not is_secret_name(name)


def test_secret_values_skip_short_values_and_take_named_and_argv_ones() -> None:
    env = {"A_TOKEN": "1", "B_KEY": "long-enough-value", "ODD": "odd-name-secret", "PATH": "/bin"}
    argv = ["agent", "--api-key", "argv-secret-1", "--token=argv-secret-2", "--model", "sonnet-4"]
    assert secret_values(env, ["ODD"], argv) == {
        "long-enough-value",
        "odd-name-secret",
        "argv-secret-1",
        "argv-secret-2",
    }


def test_each_cli_credentials_and_opencode_config_keys() -> None:
    env = {
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth-token-value",
        "OPENCODE_CONFIG_CONTENT": '{"provider": {"m": {"options": {"apiKey": "inline-key-123"}}}}',
    }
    # Each CLI's credential variables are secret for it.
    assert agent_secrets("claude", {"CLAUDE_CODE_OAUTH_TOKEN": "x" * 9}, ()) == {"x" * 9}
    assert agent_secrets("cursor", {"ANTHROPIC_API_KEY": "y" * 9}, ()) == {"y" * 9}
    assert agent_secrets("opencode", env, ()) == {"oauth-token-value", "inline-key-123"}
    assert json_secrets("not json") == frozenset()


@pytest.mark.parametrize(
    "shape",
    [
        KEY,
        "sk-proj-Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0",
        "sk-abcdefghijklmnopqrstuvwxyz012345",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "gho_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAY34FZKBOKMUTVV7A",
        "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    ],
)
def test_key_shapes_are_redacted_wherever_they_come_from(shape: str) -> None:
    r = Redactor()
    assert r.text(f"key={shape}.") == f"key={REDACTED}."
    assert r.raw(f"'{shape}'\n".encode()) == f"'{REDACTED}'\n".encode()


@pytest.mark.parametrize(
    "text", ["task-list-for-the-whole-project-today", "AKIAIOSFODNN7EXAMPLEX2", "risk-assessment"]
)
def test_words_that_merely_look_alike_are_left_alone(text: str) -> None:
    assert Redactor().text(text) == text


def test_values_are_redacted_longest_first_and_short_ones_never() -> None:
    r = Redactor(["abcdefgh", "abcdefgh-and-more", "1"])
    assert r.text("abcdefgh-and-more abcdefgh 1") == f"{REDACTED} {REDACTED} 1"


def test_scrub_redacts_every_string_of_an_event_and_keeps_the_rest() -> None:
    r = redactor(frozenset({"hunter2-hunter2"}))
    row = SpecRow("PROMPT.md", 1, "DONE", False)
    event = RotationEnded(
        "a", "PROMPT.md", "IMPLEMENT", 1, 1, 5, "ERROR", 0, 1, 0.1,
        "failed: bad key hunter2-hunter2", ("x",), (row,),
    )  # fmt: skip
    clean = r.scrub(event)
    assert clean.note == f"failed: bad key {REDACTED}"
    assert clean.matrix[0] is row and clean.iteration == 1
    untouched = Notice("info", "nothing secret")
    assert r.scrub(untouched) is untouched


def feed_in_pieces(stream: StreamRedactor, data: bytes, cuts: list[int]) -> bytes:
    out, last = [], 0
    for cut in [*cuts, len(data)]:
        out.append(stream.feed("stdout", data[last:cut]))
        last = cut
    out.append(stream.flush("stdout"))
    return b"".join(out)


def test_a_secret_cut_anywhere_by_chunk_boundaries_is_still_redacted() -> None:
    secret = "plain-value-without-any-shape"
    data = f"one {secret} two\nthree {KEY}\nno newline at the end {secret}".encode()
    expected = f"one {REDACTED} two\nthree {REDACTED}\nno newline at the end {REDACTED}".encode()
    rng = random.Random(7)
    for _ in range(300):
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, 8)))
        got = feed_in_pieces(StreamRedactor(Redactor([secret])), data, cuts)
        assert got == expected, cuts


def test_a_very_long_line_is_let_out_early_without_cutting_a_secret() -> None:
    secret = "long-line-secret-value"
    stream = StreamRedactor(Redactor([secret]), limit=4096)
    line = (b"x" * 3000 + secret.encode()) * 10 + b"\n"
    pieces = [line[i : i + 1000] for i in range(0, len(line), 1000)]
    out = [stream.feed("stdout", piece) for piece in pieces]
    assert any(out[:-1])  # memory stays bounded: output came out before the newline
    assert b"".join(out) == line.replace(secret.encode(), REDACTED.encode())


def test_streams_are_held_separately() -> None:
    stream = StreamRedactor(Redactor(["separate-streams"]))
    assert stream.feed("stdout", b"separate-") == b""
    assert stream.feed("stderr", b"streams\n") == b"streams\n"
    assert stream.feed("stdout", b"streams\n") == f"{REDACTED}\n".encode()


def test_a_tail_that_starts_mid_stream_drops_its_cut_first_line() -> None:
    stream = StreamRedactor(Redactor(["tail-secret-value"]))
    # The tail starts inside a secret: what is left of it cannot be recognised, so that line goes.
    assert stream.tail(b"ecret-value rest\nnext tail-secret-value\n", 100) == (
        f"next {REDACTED}\n".encode()
    )
    assert stream.tail(b"whole tail-secret-value\n", 24) == f"whole {REDACTED}\n".encode()


PEM_BODY = ("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "VTLw7onLRnrq0")


PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----"


SHAPES = {
    "slack": "xoxb-2048-1234567890-AbCdEfGhIjKlMnOp",
    "slack user": "xoxp-123456789012-abcdefghij",
    "stripe live": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "stripe restricted": "rk_live_51H8AbCdEfGhIjKl",
    "stripe test": "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "gitlab": "glpat-AbCdEfGhIjKlMnOpQrSt",
    "npm": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "hugging face": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "google oauth": "ya29.a0AfH6SMBx-1234567890abcdefg_hijk",
    "pem": PEM,
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_each_shape_is_redacted(name: str) -> None:
    secret = SHAPES[name]
    r = redactor()
    for text in (f"found {secret} here", f"{secret}", f'"key": "{secret}",'):
        out = r.text(text)
        assert secret not in out and REDACTED in out, out
        assert r.raw(text.encode()) == out.encode()


def test_the_name_before_a_password_or_account_key_is_kept() -> None:
    r = redactor()
    url = "DATABASE_URL=postgres://admin:s3cr3t-p4ss@db.internal:5432/app"
    assert r.text(url) == f"DATABASE_URL=postgres://admin:{REDACTED}@db.internal:5432/app"
    azure = (
        "DefaultEndpointsProtocol=https;AccountName=acme;"
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"
        "EndpointSuffix=core.windows.net"
    )
    out = r.text(azure)
    assert out == f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={REDACTED};" + (
        "EndpointSuffix=core.windows.net"
    )


ORDINARY = (
    "See https://example.com/docs?page=2 and http://localhost:8080/health, mail me@example.com.",
    "git clone git@github.com:org/repo.git; ssh://git@host/repo; ftp://host:21/",
    "task_list, sk_tester, hf_, npm_install, xoxo, ya29, eyJ, a.b.c, rk_live, AccountKey=short",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIJAL\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "def test_jwt(): header.payload.signature is how a token looks",
)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_redacted(text: str) -> None:
    r = redactor()
    assert r.text(text) == text
    assert r.raw(text.encode()) == text.encode()


def _stream(chunks: list[bytes]) -> bytes:
    s = StreamRedactor(redactor())
    out = b"".join(s.feed("stdout", c) for c in chunks)
    return out + s.flush("stdout")


def test_a_pem_block_is_redacted_across_lines_and_chunks() -> None:
    data = f"before\n{PEM}\nafter\n".encode()
    # every cut: the key arrives one line, a few bytes, or a byte at a time
    for size in (1, 7, 40, len(data)):
        out = _stream([data[i : i + size] for i in range(0, len(data), size)])
        assert not [line for line in PEM_BODY if line.encode() in out], (size, out)
        assert out.startswith(b"before\n") and out.endswith(b"after\n"), out
        assert REDACTED.encode() in out


def test_an_unfinished_pem_block_is_redacted_to_the_end() -> None:
    out = _stream([f"x\n-----BEGIN PRIVATE KEY-----\n{PEM_BODY[0]}\n{PEM_BODY[1]}".encode()])
    assert PEM_BODY[0].encode() not in out and PEM_BODY[1].encode() not in out
    assert redactor().text(f"x\n-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY[0]}") == f"x\n{REDACTED}"


def test_a_kept_tail_that_starts_inside_a_pem_block_shows_none_of_it() -> None:
    data = f"{PEM_BODY[0]}\n{PEM_BODY[1]}\n-----END RSA PRIVATE KEY-----\nlast words\n".encode()
    out = StreamRedactor(redactor()).tail(data, total=len(data) + 1000)
    assert PEM_BODY[1].encode() not in out
    assert out.endswith(b"last words\n")


def test_a_tail_inside_one_long_line_keeps_its_end() -> None:
    # One line longer than the kept tail (a wrapper printing one JSON object per run): the
    # signal at its end stays; the start, which may hold a secret's cut end, goes.
    secret = "tail-secret-value-0123456789"
    stream = StreamRedactor(redactor(frozenset({secret})))
    data = (secret[5:] + "x" * 20_000 + " <ralph>DONE</ralph>").encode()
    out = stream.tail(data, total=len(data) + 5)
    assert out.endswith(b" <ralph>DONE</ralph>")
    assert secret[5:].encode() not in out and len(out) >= 10_000
