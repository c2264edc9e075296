"""`framing.FrameDecoder`: the bodies of a stream of framed messages are the same however the
stream arrives (seeded random splits, down to a byte at a time), with the limits of
docs/reliability.md#framing-limits: a body over the limit dropped, header lines taken at most
`MAX_HEADER_LINE` bytes at a time, lines before a length skipped."""

from __future__ import annotations

import random

import pytest

from todo_ls.server.framing import MAX_HEADER_LINE, FrameDecoder

LIMIT = 100


def frame(body: bytes, headers: bytes = b"") -> bytes:
    return b"%sContent-Length: %d\r\n\r\n%s" % (headers, len(body), body)


def bodies_of(chunks: list[bytes], max_body: int = LIMIT) -> list[bytes]:
    decoder = FrameDecoder(max_body)
    bodies = []
    for chunk in chunks:
        decoder.feed(chunk)
        while (body := decoder.next_body()) is not None:
            bodies.append(body)
    return bodies


def split(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, min(40, len(data) - 1))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def random_stream(rng: random.Random) -> tuple[bytes, list[bytes]]:
    """A stream of messages as a client might send them, and the bodies it holds."""
    stream, kept = b"", []
    for _ in range(rng.randint(1, 12)):
        body = rng.randbytes(rng.choice([0, 1, 5, 60, LIMIT, LIMIT + 1, 3 * LIMIT]))
        headers = rng.choice(
            [b"", b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n", b"\n", b"x\n"]
        )
        stream += frame(body, headers)
        if len(body) <= LIMIT:
            kept.append(body)
    return stream, kept


@pytest.mark.parametrize("seed", range(200))
def test_the_bodies_do_not_depend_on_how_the_stream_is_split(seed: int) -> None:
    rng = random.Random(seed)
    stream, kept = random_stream(rng)
    assert bodies_of([stream]) == kept
    assert bodies_of(split(stream, rng)) == kept


def test_a_stream_a_byte_at_a_time() -> None:
    stream, kept = random_stream(random.Random(7))
    assert bodies_of([stream[i : i + 1] for i in range(len(stream))]) == kept


def test_a_body_over_the_limit_is_dropped_as_it_arrives() -> None:
    decoder = FrameDecoder(LIMIT)
    decoder.feed(b"Content-Length: 1000000\r\n\r\n")
    assert decoder.next_body() is None
    for _ in range(99):
        decoder.feed(bytes(10_000))
        assert decoder.next_body() is None
        assert not decoder.buffered  # nothing of it is held
    decoder.feed(bytes(10_000) + frame(b"{}"))
    assert decoder.next_body() == b"{}"


def test_a_long_header_line_is_taken_in_pieces() -> None:
    decoder = FrameDecoder(LIMIT)
    decoder.feed(b"X" * (10 * MAX_HEADER_LINE + 5))
    assert decoder.next_body() is None
    assert len(decoder._buffer) < MAX_HEADER_LINE  # what is left of it is less than a line
    decoder.feed(b"\r\n" + frame(b"{}"))
    assert decoder.next_body() == b"{}"


def test_a_blank_line_alone_does_not_end_a_header_block() -> None:
    assert bodies_of([b"\r\n\r\n" + frame(b"{}")]) == [b"{}"]


def test_a_read_asks_for_the_rest_of_a_long_body() -> None:
    decoder = FrameDecoder(10 << 20)
    decoder.feed(b"Content-Length: 3000000\r\n\r\n")
    assert decoder.next_body() is None
    assert decoder.wanted() == 1 << 20  # a chunk, not the whole body at once
    decoder.feed(bytes(2_900_000))
    assert decoder.next_body() is None
    assert decoder.wanted() == 100_000  # then what is left of it
