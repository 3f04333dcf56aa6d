"""Id schemes behind one protocol; ``inspect`` tells which one a text is.

Every scheme lives in its own module of this package with its :class:`Registration`; the
registry (:mod:`ulidkeys.ids.registry`) finds them by walking the package, so ``names()`` and
``REGISTRATIONS`` list every one, ``registration_of(name)`` / ``scheme_named(name)`` find any of
them by name, and ``SCHEMES`` holds every registered single scheme whose text sorts by time
(ULID first). ``TAGGED_ULIDS`` holds the tagged ULIDs; TypeIDs are made per prefix.

``bounds(scheme, window)`` and ``id_range`` give exact key ranges of a time window for any
time-sortable one."""

from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.discord import DISCORD_SNOWFLAKE, DISCORD_SPLIT
from ulidkeys.ids.generators import IdGenerator
from ulidkeys.ids.gregorian import UUID1, UUID1_ORDERED, UUID6, convert_uuid
from ulidkeys.ids.inspection import READERS, Inspection, inspect
from ulidkeys.ids.instagram import INSTAGRAM_ID, INSTAGRAM_SPLIT, instagram_shard_of
from ulidkeys.ids.interop import coerce_id
from ulidkeys.ids.ksuid import KSUID
from ulidkeys.ids.objectid import OBJECT_ID
from ulidkeys.ids.protocol import (
    IdScheme,
    MsWindow,
    bounds,
    first_at_or_after,
    has_no_time,
    id_ceiling,
    id_floor,
    id_range,
    in_window,
    invert_id,
    inverted_time,
    inverted_window,
    require_sortable,
    shard_of,
)
from ulidkeys.ids.registration import Reading, Registration
from ulidkeys.ids.registry import (
    REGISTRATIONS,
    SCHEMES,
    generator_for,
    names,
    registration_of,
    scheme_named,
)
from ulidkeys.ids.snowflake import (
    TWITTER_SNOWFLAKE,
    TWITTER_SPLIT,
    SnowflakeGenerator,
    SnowflakeScheme,
    SnowflakeSplit,
)
from ulidkeys.ids.tickets import TICKET, TICKET_MAX, TicketScheme, TicketSplit
from ulidkeys.ids.typed import (
    TAGGED_ULIDS,
    ULID_TAG1,
    ULID_TAG2,
    ULID_TAG3,
    TaggedUlidScheme,
    TypeIdScheme,
    split_typeid,
    typeid,
)
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.ids.uuid7 import UUID7
from ulidkeys.ids.uuids import UUID3, UUID4, UUID5, UUID_MAX, UUID_NIL

__all__ = [
    "DISCORD_SNOWFLAKE",
    "DISCORD_SPLIT",
    "INSTAGRAM_ID",
    "INSTAGRAM_SPLIT",
    "KSUID",
    "OBJECT_ID",
    "READERS",
    "REGISTRATIONS",
    "SCHEMES",
    "TAGGED_ULIDS",
    "TICKET",
    "TICKET_MAX",
    "TWITTER_SNOWFLAKE",
    "TWITTER_SPLIT",
    "ULID_SCHEME",
    "ULID_TAG1",
    "ULID_TAG2",
    "ULID_TAG3",
    "UUID1",
    "UUID1_ORDERED",
    "UUID3",
    "UUID4",
    "UUID5",
    "UUID6",
    "UUID7",
    "UUID_MAX",
    "UUID_NIL",
    "IdGenerator",
    "IdScheme",
    "Inspection",
    "IntCodedScheme",
    "MsWindow",
    "Reading",
    "Registration",
    "SnowflakeGenerator",
    "SnowflakeScheme",
    "SnowflakeSplit",
    "TaggedUlidScheme",
    "TicketScheme",
    "TicketSplit",
    "TypeIdScheme",
    "bounds",
    "coerce_id",
    "convert_uuid",
    "first_at_or_after",
    "generator_for",
    "has_no_time",
    "id_ceiling",
    "id_floor",
    "id_range",
    "in_window",
    "inspect",
    "instagram_shard_of",
    "invert_id",
    "inverted_time",
    "inverted_window",
    "names",
    "registration_of",
    "require_sortable",
    "scheme_named",
    "shard_of",
    "split_typeid",
    "typeid",
]
