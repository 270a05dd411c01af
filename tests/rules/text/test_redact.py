"""rules/text/redact.py: secrets kept out of everything ralph writes."""

from __future__ import annotations

import pytest

from ralph.rules.text.redact import (
    REDACTED,
    Redactor,
    is_secret_name,
    redactor,
    secret_values,
)
from ralph.run.events import Notice, RotationEnded, SpecRow

KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "GH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "client_secret",
        "MY_PASSWD",
        "SECRET_KEY_BASE",
        "NPM_AUTH_TOKEN",
    ],
)
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
        "a",
        "PROMPT.md",
        "IMPLEMENT",
        1,
        1,
        5,
        "ERROR",
        0,
        1,
        0.1,
        "failed: bad key hunter2-hunter2",
        ("x",),
        (row,),
    )
    clean = r.scrub(event)
    assert clean.note == f"failed: bad key {REDACTED}"
    assert clean.matrix[0] is row and clean.iteration == 1
    untouched = Notice("info", "nothing secret")
    assert r.scrub(untouched) is untouched


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
