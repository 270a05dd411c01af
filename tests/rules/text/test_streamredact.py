"""rules/text/streamredact.py: a process's output redacted as it streams (rules/text/redact.py says
which
values are secret)."""

from __future__ import annotations

import random

from ralph.rules.text.redact import (
    REDACTED,
    Redactor,
    redactor,
)
from ralph.rules.text.streamredact import StreamRedactor

KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


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
