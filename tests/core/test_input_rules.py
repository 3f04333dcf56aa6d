"""Input that used to be accepted and silently wrong (issue 14 item 6): bytes counted as items,
time strings with a NUL and trailing text, digits of other scripts read as numbers."""

from __future__ import annotations

from array import array

import pytest

from ulidkeys import ids
from ulidkeys.cli import main
from ulidkeys.errors import InvalidId, InvalidTime, InvalidType, InvalidULID
from ulidkeys.timeinput import to_ms
from ulidkeys.ulid import ULID

SOME = ULID.new(1_700_000_000_000)


@pytest.mark.parametrize("code", ["H", "i", "I", "q", "f"])
def test_from_bytes_refuses_views_of_wider_items(code: str) -> None:
    view = memoryview(array(code, [0] * (16 // array(code).itemsize)))
    assert view.nbytes == 16
    with pytest.raises(InvalidType, match=f"format '{code}'"):
        ULID.from_bytes(view)
    with pytest.raises(InvalidType, match=f"format '{code}'"):
        ULID.from_bytes(memoryview(array(code, [0xFF] * 16)))


def test_from_bytes_counts_bytes_of_byte_views() -> None:
    raw = SOME.bytes
    assert ULID.from_bytes(memoryview(raw)) == SOME
    assert ULID.from_bytes(memoryview(bytearray(raw))[0:16]) == SOME
    assert ULID.from_bytes(memoryview(raw).cast("B", (4, 4))) == SOME  # 2-d, 16 bytes
    assert ULID.from_bytes(memoryview(raw * 2)[::2]) == ULID.from_bytes((raw * 2)[::2])
    with pytest.raises(InvalidULID, match="expected 16 bytes, got 15"):
        ULID.from_bytes(memoryview(raw)[1:])


@pytest.mark.parametrize(
    ("scheme", "value"),
    [
        (ids.ULID_SCHEME, -1),
        (ids.ULID_SCHEME, 1 << 128),
        (ids.UUID7, -1),
        (ids.UUID7, 0),  # version bits missing
        (ids.KSUID, 1 << 160),
        (ids.TWITTER_SNOWFLAKE, -1),
    ],
)
def test_from_int_validates_every_scheme(scheme: ids.IdScheme, value: int) -> None:
    with pytest.raises(InvalidId):
        scheme.from_int(value)
    with pytest.raises(InvalidType):
        scheme.from_int(True)  # type: ignore[arg-type]


def test_ulid_from_int_validates() -> None:
    for value in (-1, 1 << 128):
        with pytest.raises(InvalidULID):
            ULID.from_int(value)
    with pytest.raises(InvalidType):
        ULID.from_int(1.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-17T09:00:00Z\x00; rm -rf /",
        "2024-05-17T09:00:00Z\x00",
        "٢٠٢٤-٠٥-١٧T09:00:00Z",
        "２０２４-05-17T09:00:00Z",
        "2024-05-17T09:00:00\u2028Z",
    ],
)
def test_time_strings_must_be_printable_ascii(text: str) -> None:
    with pytest.raises(InvalidTime, match="printable ASCII"):
        to_ms(text)


def test_cli_reads_only_ascii_digits_as_milliseconds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range", "--since", "١٢٣", "--until", "1000"]) == 2
    assert "printable ASCII" in capsys.readouterr().err
    assert main(["range", "--since", "123", "--until", "1000"]) == 0
