from __future__ import annotations

import ulidkeys


def test_new_is_a_parseable_ulid() -> None:
    text = ulidkeys.new()
    assert ulidkeys.ULID.parse(text).timestamp_ms > 0
