"""Ids as objects of other libraries: whatever holds an id's bytes is accepted as that id.

``uuid.UUID`` (v1/v6/v7, and ``uuid6`` / ``uuid_utils`` objects), python-ulid's ``ULID``, svix-
ksuid's ``Ksuid``, ``bson.ObjectId`` and this library's ``ULID`` are read by duck typing (their
``bytes``), so ``ulidkeys.ids`` imports none of them.
"""

from __future__ import annotations

from decimal import Decimal

from ulidkeys.errors import InvalidId, InvalidType, describe
from ulidkeys.ids.gregorian import UUID1, UUID1_ORDERED, convert_uuid
from ulidkeys.ids.protocol import IdScheme


def _id_bytes(value: object) -> bytes | None:
    """The big-endian bytes an id object holds, or None if it holds none we know of."""
    for attribute in ("bytes", "binary"):  # uuid.UUID, ULID objects; bson.ObjectId
        data = getattr(value, attribute, None)
        if isinstance(data, bytes):
            return data
    if type(value).__module__.split(".")[0] == "ksuid":  # svix-ksuid: bytes(Ksuid) is the id
        return bytes(value)  # type: ignore[call-overload, no-any-return]
    return None


def coerce_id(scheme: IdScheme, value: object, name: str = "id") -> str:
    """The canonical text of ``value`` as an id of ``scheme``.

    Takes the id's text, an int (or whole Decimal, as DynamoDB returns Numbers) for numeric
    schemes, or an id object of another library whose bytes are an id of the scheme (a
    ``uuid.UUID`` of the right version for a UUID scheme, any 16-byte id for ULIDs and
    TypeIDs; a v1 ``uuid.UUID`` for MySQL's ordered v1, converted). InvalidType for anything
    else, InvalidId naming ``name`` for a bad value - an id object of another width too (an
    ObjectId's 12 bytes for a ULID, a ULID's 16 for a KSUID).
    """
    if isinstance(value, str):
        return scheme.parse(value)
    try:
        if isinstance(value, (int, Decimal)) and not isinstance(value, bool) and scheme.numeric:
            if isinstance(value, Decimal) and (
                not value.is_finite() or value != value.to_integral_value()
            ):
                raise InvalidId(f"{value} is not a whole number")
            return scheme.from_int(int(value))
        data = _id_bytes(value)
        if data is not None:
            width = getattr(scheme, "bits", None)
            if width is not None and len(data) != (width + 7) // 8:
                # an id of another width read as a number would be zero-padded into a
                # plausible id of another time (an ObjectId's 12 bytes as a ULID of 1970)
                raise InvalidId(
                    f"it holds {len(data)} bytes; a {scheme.name} id is {(width + 7) // 8}"
                )
            number = int.from_bytes(data, "big")
            if scheme is UUID1_ORDERED and getattr(value, "version", None) == 1:
                # a uuid.UUID v1 (an application's uuid1()) goes in as MySQL's UUID_TO_BIN(u, 1)
                return convert_uuid(UUID1.from_int(number), UUID1, UUID1_ORDERED)
            return scheme.from_int(number)
    except InvalidId as error:
        raise InvalidId(f"{name}={describe(value)} is no {scheme.name} id: {error}") from None
    accepted = "text, an int" if scheme.numeric else "text"
    raise InvalidType(
        f"{name}={describe(value)} must be the {accepted} or an id object (uuid.UUID, ULID, "
        f"Ksuid, ObjectId) of a {scheme.name} id, not {type(value).__name__}"
    )
