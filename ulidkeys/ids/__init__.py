"""Time-sortable id schemes behind one protocol: ULID, UUIDv7/v6, KSUID, ObjectId, Snowflake.

``bounds(scheme, window)`` turns a time window into key bounds for any of them, so code that
already names things with UUIDv7s or KSUIDs gets the same exact time-window ranges as ULIDs.
"""

from ulidkeys.ids.protocol import IdScheme, bounds, first_at_or_after, in_window
from ulidkeys.ids.schemes import (
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

__all__ = [
    "DISCORD_SNOWFLAKE",
    "INSTAGRAM_ID",
    "KSUID",
    "OBJECT_ID",
    "TWITTER_SNOWFLAKE",
    "ULID_SCHEME",
    "UUID6",
    "UUID7",
    "IdScheme",
    "IntCodedScheme",
    "SnowflakeScheme",
    "bounds",
    "first_at_or_after",
    "in_window",
]
