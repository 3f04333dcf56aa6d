"""``inspect(text)``: what an id is (scheme, time, fields), recognised from its text alone.

Readers are tried in one documented order (:data:`READERS`); text that several schemes accept
(a 19-digit number is a Snowflake of which epoch?) gives every reading, the first on top.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from ulidkeys.errors import InvalidId, InvalidType, InvalidValue, describe
from ulidkeys.ids.generators import INSTAGRAM_SPLIT, TWITTER_SPLIT, SnowflakeSplit
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.schemes import (
    _UUID_TEXT,
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    ULID_SCHEME,
    UUID6,
    UUID7,
    IntCodedScheme,
    SnowflakeScheme,
)
from ulidkeys.ids.typed import TAGGED_ULIDS, TaggedUlidScheme, TypeIdScheme, split_typeid
from ulidkeys.ids.uuids import (
    UUID1,
    UUID1_ORDERED,
    UUID3,
    UUID4,
    UUID5,
    UUID_MAX,
    UUID_NIL,
    _ordered_ticks,
    _v1_ticks,
    _v6_ticks,
    convert_uuid,
)
from ulidkeys.timeinput import MAX_DATETIME_MS, format_ms, ms_to_datetime

Field = int | str
#: 0001-01-01T00:00:00Z, the first millisecond a datetime can hold (v1 ids reach back to 1582).
_FIRST_DATETIME_MS = -62_135_596_800_000


@dataclass(frozen=True)
class Inspection:
    """One reading of an id: its scheme, canonical text, time (aware UTC, or None for ids
    without one) and fields (``version``, ``node``, ``shard``, ``sequence``, ``counter``,
    ``random``, ... as the scheme has them; bit fields as ints, opaque parts as hex).

    ``alternatives`` holds the other readings of ambiguous text, in :data:`READERS` order;
    ``candidates`` is this reading followed by them.
    """

    scheme: str
    id: str
    time: datetime | None
    timestamp_ms: int | None
    fields: Mapping[str, Field] = field(hash=False)
    alternatives: tuple[Inspection, ...] = ()

    @property
    def candidates(self) -> tuple[Inspection, ...]:
        return (self, *self.alternatives)

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: what ``ulidkeys inspect --json`` prints for one id."""
        result: dict[str, Any] = {
            "scheme": self.scheme,
            "id": self.id,
            "time": None if self.timestamp_ms is None else format_ms(self.timestamp_ms),
            "timestamp_ms": self.timestamp_ms,
            "fields": dict(self.fields),
        }
        if self.alternatives:
            result["alternatives"] = [
                {key: value for key, value in alt.as_dict().items() if key != "alternatives"}
                for alt in self.alternatives
            ]
        return result


def _hex(value: int, digits: int) -> str:
    return f"{value:0{digits}x}"


def _uuid_fields(value: int) -> dict[str, Field]:
    return {"version": (value >> 76) & 0xF, "variant": (value >> 62) & 0b11}


def _gregorian(ticks: int, low: int) -> dict[str, Field]:
    """Fields of the v1 family: 100 ns ticks, clock sequence, node (multicast = not a MAC)."""
    node = low & ((1 << 48) - 1)
    return {
        "ticks_100ns": ticks,
        "clock_seq": (low >> 48) & 0x3FFF,
        "node": _hex(node, 12),
        "node_is_random": bool(node >> 40 & 1),
    }


def _snowflake(split: SnowflakeSplit, node_name: str) -> Callable[[int], dict[str, Field]]:
    def fields(value: int) -> dict[str, Field]:
        _, node, sequence = split.decompose(value)
        return {node_name: node, "sequence": sequence}

    return fields


def _discord(value: int) -> dict[str, Field]:
    return {
        "worker": (value >> 17) & 0x1F,
        "process": (value >> 12) & 0x1F,
        "increment": value & 0xFFF,
    }


# Scheme name -> its fields from the numeric form: a table, not a chain of branches.
_FIELDS: dict[str, Callable[[int], dict[str, Field]]] = {
    "ulid": lambda v: {"random": _hex(v & ((1 << 80) - 1), 20)},
    "uuid7": lambda v: {
        **_uuid_fields(v),
        "rand_a": (v >> 64) & 0xFFF,
        "rand_b": _hex(v & ((1 << 62) - 1), 16),
    },
    "uuid6": lambda v: {**_uuid_fields(v), **_gregorian(_v6_ticks(v), v & ((1 << 64) - 1))},
    "uuid1": lambda v: {**_uuid_fields(v), **_gregorian(_v1_ticks(v), v & ((1 << 64) - 1))},
    "uuid1-ordered": lambda v: {
        "version": 1,
        "variant": (v >> 62) & 0b11,
        "uuid1": convert_uuid(UUID1_ORDERED._encode(v), UUID1_ORDERED, UUID1),
        **_gregorian(_ordered_ticks(v), v & ((1 << 64) - 1)),
    },
    "uuid3": lambda v: {**_uuid_fields(v), "hash": _hex(v, 32)},
    "uuid4": lambda v: {**_uuid_fields(v), "random": _hex(UUID4._random_of(v), 31)},
    "uuid5": lambda v: {**_uuid_fields(v), "hash": _hex(v, 32)},
    "uuid-nil": lambda v: {"version": 0},
    "uuid-max": lambda v: {"version": 15},
    "ksuid": lambda v: {"timestamp": v >> 128, "payload": _hex(v & ((1 << 128) - 1), 32)},
    "objectid": lambda v: {
        "seconds": v >> 64,
        "random": _hex((v >> 24) & ((1 << 40) - 1), 10),
        "counter": v & 0xFFFFFF,
    },
    "twitter-snowflake": _snowflake(TWITTER_SPLIT, "worker"),
    "discord-snowflake": _discord,
    "instagram-id": _snowflake(INSTAGRAM_SPLIT, "shard"),
}


def _fields_of(scheme: IdScheme, value: int) -> dict[str, Field]:
    if isinstance(scheme, TypeIdScheme):
        return {"type": scheme.prefix, "uuid": UUID7._encode(value), **_uuid_fields(value)}
    if isinstance(scheme, TaggedUlidScheme):
        plain = scheme.untag(scheme._encode(value))
        return {"tag": scheme.tag, "ulid": plain, **_FIELDS["ulid"](value)}
    table = _FIELDS.get(scheme.name)
    return {} if table is None else table(value)


def _reading(scheme: IdScheme, text: str) -> Inspection:
    canonical = scheme.parse(text)
    value = scheme.to_int(canonical)
    try:
        ms: int | None = scheme.timestamp_ms(canonical)
    except InvalidValue:  # v3/v4/v5, nil and max hold no time (the text is valid by now)
        ms = None
    in_range = ms is not None and _FIRST_DATETIME_MS <= ms <= MAX_DATETIME_MS
    when = ms_to_datetime(ms) if in_range and ms is not None else None
    return Inspection(
        scheme=scheme.name,
        id=canonical,
        time=when,
        timestamp_ms=ms,
        fields=MappingProxyType(_fields_of(scheme, value)),
    )


_HEX32 = re.compile(r"[0-9a-fA-F]{32}")


def _read_typeid(text: str) -> list[Inspection]:
    if "_" not in text and not text.islower() and not text.isdigit():
        return []  # a TypeID without a prefix is a lowercase ULID: only read it as one if so
    try:
        prefix, _ = split_typeid(text)
    except InvalidId:
        return []
    return [_reading(TypeIdScheme(prefix), text)]


def _read_uuid_hex(text: str) -> list[Inspection]:
    """32 hex digits without dashes (``uuid.hex``): a UUID of whichever version it says."""
    if not _HEX32.fullmatch(text):
        return []
    dashed = f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
    return _read_schemes(_UUIDS, dashed)


def _read_schemes(schemes: tuple[IntCodedScheme, ...], text: str) -> list[Inspection]:
    found = []
    for scheme in schemes:
        try:
            found.append(_reading(scheme, text))
        except InvalidId:
            continue
    return found


_UUIDS: tuple[IntCodedScheme, ...] = (UUID7, UUID6, UUID1, UUID3, UUID4, UUID5, UUID_NIL, UUID_MAX)
_SNOWFLAKES: tuple[SnowflakeScheme, ...] = (TWITTER_SNOWFLAKE, DISCORD_SNOWFLAKE, INSTAGRAM_ID)

#: The order in which ``inspect`` reads text; the first reading that fits comes first.
#: ULID, TypeID (its prefix-less form is a lowercase ULID), tagged ULIDs, the UUIDs by
#: version (v7, v6, v1, v3, v4, v5, nil, max), MySQL's ordered v1 (32 hex), a UUID written as
#: 32 hex, KSUID, ObjectId, then Snowflakes: Twitter, Discord, Instagram (a decimal number
#: says nothing about its epoch; pass ``scheme=`` to choose).
READERS: tuple[Callable[[str], list[Inspection]], ...] = (
    lambda text: _read_schemes((ULID_SCHEME,), text),
    _read_typeid,
    lambda text: _read_schemes(TAGGED_ULIDS, text),
    lambda text: _read_schemes(_UUIDS, text) if _UUID_TEXT.fullmatch(text) else [],
    lambda text: _read_schemes((UUID1_ORDERED,), text) if _HEX32.fullmatch(text) else [],
    _read_uuid_hex,
    lambda text: _read_schemes((KSUID, OBJECT_ID), text),
    lambda text: _read_schemes(_SNOWFLAKES, text),
)

#: Every scheme ``inspect`` knows by name (for ``scheme="..."``); TypeIDs as ``"typeid"``.
KNOWN: dict[str, IdScheme] = {
    scheme.name: scheme
    for scheme in (
        ULID_SCHEME,
        *TAGGED_ULIDS,
        *_UUIDS,
        UUID1_ORDERED,
        KSUID,
        OBJECT_ID,
        *_SNOWFLAKES,
    )
}


def inspect(text: str, scheme: IdScheme | str | None = None) -> Inspection:
    """What id ``text`` is: scheme, canonical text, time (aware UTC) and fields.

    Without ``scheme`` every supported scheme is tried in :data:`READERS` order; ambiguous
    text returns the first reading with the others in ``.alternatives``. ``scheme`` (an
    :class:`IdScheme` or a name such as ``"discord-snowflake"`` or ``"typeid"``) reads it as
    that scheme only. Text no scheme accepts raises InvalidId (a ValueError) with each
    scheme's reason.
    """
    if not isinstance(text, str):
        raise InvalidType(f"{describe(text)} must be the text of an id, not {type(text).__name__}")
    if scheme is not None:
        return _reading(_scheme_named(scheme, text), text)
    found: list[Inspection] = []
    for reader in READERS:
        for reading in reader(text):
            if all(reading.scheme != seen.scheme for seen in found):
                found.append(reading)
    if not found:
        raise InvalidId(f"{describe(text)} is no id of any supported scheme: {_reasons(text)}")
    first, *rest = found
    return Inspection(
        scheme=first.scheme,
        id=first.id,
        time=first.time,
        timestamp_ms=first.timestamp_ms,
        fields=first.fields,
        alternatives=tuple(rest),
    )


def _scheme_named(scheme: IdScheme | str, text: str) -> IdScheme:
    if isinstance(scheme, IdScheme):
        return scheme
    if scheme == "typeid":
        return TypeIdScheme(split_typeid(text)[0])
    if isinstance(scheme, str) and scheme in KNOWN:
        return KNOWN[scheme]
    raise InvalidType(
        f"scheme={describe(scheme)} is neither an id scheme nor one of: "
        f"{', '.join([*KNOWN, 'typeid'])}"
    )


#: One scheme per text family, for the reasons of a refusal (tagged ULIDs would repeat ULID's).
_FAMILIES: tuple[IntCodedScheme, ...] = (
    ULID_SCHEME,
    UUID7,
    UUID1_ORDERED,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
)


def _reasons(text: str) -> str:
    """Why the schemes whose text has this length refused it, or which lengths there are."""
    reasons = []
    for scheme in _FAMILIES:
        fits = len(text) == scheme.length or (
            scheme.numeric and text.isdigit() and len(text) < scheme.length
        )
        if fits:
            try:
                scheme.parse(text)
            except InvalidId as error:
                reasons.append(f"as {scheme.name}: {error}")
    if reasons:
        return "; ".join(reasons)
    return (
        f"it has {len(text)} characters; ULIDs have 26, UUIDs 36 (or 32 hex), KSUIDs 27, "
        "ObjectIds 24, TypeIDs a prefix and '_' before 26, Snowflakes up to 20 digits"
    )
