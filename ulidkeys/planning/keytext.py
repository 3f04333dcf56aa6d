"""The characters and path shapes a key may hold: one rule for S3 keys and DynamoDB key fields.

Keys are shown to people (consoles, logs) and S3 keys are downloaded to file systems, so text
that displays as something else or resolves as a path is refused, never escaped.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

from ulidkeys.errors import InvalidType, UlidkeysError, describe

#: Unicode categories refused anywhere in a key: control characters (Cc), invisible format
#: characters including bidirectional overrides and isolates U+202A-U+202E, U+2066-U+2069 and
#: zero-width characters (Cf), and line/paragraph separators U+2028/U+2029 (Zl, Zp).
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})

_WHY = {
    "Cc": "a control character",
    "Cf": "an invisible format character (bidirectional override, zero-width, ...)",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
#: Path separators of any file system a key may be downloaded to.
_SEPARATORS = re.compile(r"[/\\]")
_DRIVE = re.compile(r"[A-Za-z]:")


def check_text(text: object, name: str, error: type[UlidkeysError]) -> str:
    """``text`` if it is a str of valid UTF-8 without refused characters (see
    :data:`REFUSED_CATEGORIES`); else InvalidType (not a str) or ``error`` naming the rule."""
    if not isinstance(text, str):
        raise InvalidType(f"{name}={describe(text)} must be a str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise error(
            f"{name}={describe(text)} contains a lone surrogate; keys are UTF-8 text"
        ) from None
    if text.isascii() and text.isprintable():
        return text  # the common case, decided without a per-character loop
    for position, char in enumerate(text):
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES:
            raise error(
                f"{name}={describe(text)} contains {_WHY[category]} {char!r} (U+{ord(char):04X}) "
                f"at position {position}; keys must display as what they are, so it is refused"
            )
    return text


def check_path(key: str, name: str, error: type[UlidkeysError]) -> str:
    """Refuse a key that a file system would resolve as something other than its name.

    Segments are split at ``/`` and ``\\`` (Windows), also after percent-decoding (``%2e%2e``,
    ``%2f``); a segment made only of dots and spaces (``..``, ``. .``, which Windows trims to
    ``..``), a leading separator and a leading drive (``C:``) are refused.
    """
    decoded = key
    for _ in range(3):  # %252e%252e is %2e%2e after one decoding; three cover any real tool
        decoded, previous = unquote(decoded), decoded
        if decoded == previous:
            break
    for text in {key, decoded}:
        if _SEPARATORS.match(text) or _DRIVE.match(text):
            raise error(
                f"{name}={describe(key)} starts with a path root ({text[:2]!r}); a download "
                "would write outside its folder"
            )
        segments = _SEPARATORS.split(text)
        for segment in segments[:-1] if text.endswith(("/", "\\")) else segments:
            if segment and segment.strip(". ") == "" and segment != " " * len(segment):
                raise error(
                    f"{name}={describe(key)} has the path segment {segment!r}"
                    f"{' (percent-decoded)' if text is not key else ''}; tools that map keys to "
                    "paths resolve dot segments, so they are refused"
                )
    return key
