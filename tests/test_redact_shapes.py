"""The well-known key shapes redacted wherever they came from (rules/redact.py): each shape, the
PEM block that spans lines and chunks, the name kept before a password or an account key, and
ordinary text left as it is."""

from __future__ import annotations

import pytest

from ralph.rules.redact import REDACTED, redactor
from ralph.rules.streamredact import StreamRedactor

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
