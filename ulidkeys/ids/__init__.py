"""Time-sortable id schemes behind one protocol: ULID, UUIDv7/v6, KSUID, ObjectId, Snowflake.

``bounds(scheme, window)`` and ``id_range`` give exact key ranges of a time window for any of
them; ``SCHEMES`` holds every built-in scheme (ULID first)."""

from ulidkeys.ids.protocol import (
    IdScheme,
    MsWindow,
    bounds,
    first_at_or_after,
    id_ceiling,
    id_floor,
    id_range,
    in_window,
    require_sortable,
    shard_of,
)
from ulidkeys.ids.schemes import (
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
    KSUID,
    OBJECT_ID,
    SCHEMES,
    TWITTER_SNOWFLAKE,
    ULID_SCHEME,
    UUID6,
    UUID7,
    IntCodedScheme,
    SnowflakeScheme,
)

__all__ = [
    "DISCORD_SNOWFLAKE",
    "INSTAGRAM_ID",
    "KSUID",
    "OBJECT_ID",
    "SCHEMES",
    "TWITTER_SNOWFLAKE",
    "ULID_SCHEME",
    "UUID6",
    "UUID7",
    "IdScheme",
    "IntCodedScheme",
    "MsWindow",
    "SnowflakeScheme",
    "bounds",
    "first_at_or_after",
    "id_ceiling",
    "id_floor",
    "id_range",
    "in_window",
    "require_sortable",
    "shard_of",
]
