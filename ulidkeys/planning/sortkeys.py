"""Byte-order arithmetic on DynamoDB string sort keys.

DynamoDB compares string keys by their UTF-8 bytes and caps a sort key at 1,024 bytes, so for a
half-open bound ``key < hi`` there is one largest legal key below ``hi``: :func:`key_before`.
Sending it as the inclusive end of ``BETWEEN`` selects exactly the keys ``< hi``.
"""

from __future__ import annotations

from ulidkeys.errors import InvalidKeyField, describe, require_count, require_str

#: The largest sort key DynamoDB accepts, in UTF-8 bytes.
MAX_SORT_KEY_BYTES = 1024

# The largest character of each UTF-8 length: U+007F (1 byte), U+07FF, U+FFFF, U+10FFFF (4).
# A run of the 4-byte one, then the largest character that fits the bytes left, is the largest
# UTF-8 byte string of a given budget (greedy: every position holds the largest byte possible).
_LARGEST_OF_LENGTH = {1: "\x7f", 2: "\u07ff", 3: "\uffff"}
TOP_CHAR = "\U0010ffff"


def utf8_len(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes (what DynamoDB's key limits count)."""
    return len(text.encode("utf-8", "surrogatepass"))


def largest_fill(budget: int) -> str:
    """The largest string (in UTF-8 byte order) of at most ``budget`` bytes."""
    quads, rest = divmod(max(budget, 0), 4)
    return TOP_CHAR * quads + _LARGEST_OF_LENGTH.get(rest, "")


def key_before(key: str, max_bytes: int = MAX_SORT_KEY_BYTES) -> str:
    """The largest string of at most ``max_bytes`` UTF-8 bytes that sorts before ``key``.

    ``x <= key_before(k)`` holds exactly when ``x < k`` for every sort key DynamoDB can store,
    so ``BETWEEN lo AND key_before(hi)`` is the half-open ``lo <= x < hi`` that a single key
    condition cannot otherwise say. The largest string below ``k`` lowers its last character
    by one and then continues with the largest bytes that still fit the length limit (a key
    ``k[:-1] + '/' + anything`` is below ``k = ...'0'`` whatever follows).
    """
    require_str(key, "key")
    require_count(max_bytes, "max_bytes", 1)
    if not key:
        raise InvalidKeyField("no string sorts before the empty string; the range is empty")
    size = utf8_len(key)
    if size > max_bytes:
        raise InvalidKeyField(
            f"sort key bound {describe(key)} is {size} bytes; DynamoDB sort keys are at most "
            f"{max_bytes} bytes, so shorten the key template's literal text or field values"
        )
    head, last = key[:-1], ord(key[-1])
    if last == 0:
        return head  # nothing is below "\0" at this position; the prefix itself is largest
    below = last - 1
    if 0xD800 <= below <= 0xDFFF:  # surrogates are not characters; skip to U+D7FF
        below = 0xD7FF
    lowered = head + chr(below)
    return lowered + largest_fill(max_bytes - utf8_len(lowered))


def key_after(key: str, max_bytes: int = MAX_SORT_KEY_BYTES) -> str:
    """The smallest string of at most ``max_bytes`` UTF-8 bytes that sorts after ``key``.

    ``key + "\\0"`` when that fits; a full-length key instead raises the last character that
    can be raised within the byte limit and drops what follows it.
    """
    require_str(key, "key")
    require_count(max_bytes, "max_bytes", 1)
    if utf8_len(key) < max_bytes:
        return key + "\0"
    for position in range(len(key) - 1, -1, -1):
        above = ord(key[position]) + 1
        if 0xD800 <= above <= 0xDFFF:  # surrogates are not characters; skip to U+E000
            above = 0xE000
        head = key[:position]
        if above <= 0x10FFFF and utf8_len(head) + utf8_len(chr(above)) <= max_bytes:
            return head + chr(above)
    raise InvalidKeyField(f"no sort key of at most {max_bytes} bytes sorts after {describe(key)}")


def show_key(key: str) -> str:
    """A short, readable rendering of a bound: a trailing fill is written as ``+ U+10FFFF*n``."""
    body, end = key, ""
    if body[-1:] in _LARGEST_OF_LENGTH.values() and body[:-1].endswith(TOP_CHAR * 4):
        body, end = body[:-1], f" + {body[-1]!r}"
    stripped = body.rstrip(TOP_CHAR)
    count = len(body) - len(stripped)
    if count < 4:
        return repr(key)
    return f"{stripped!r} + U+10FFFF*{count}{end}"
