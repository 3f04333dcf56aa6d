"""Id schemes behind one protocol: any of them as S3 keys or DynamoDB sort keys.

Every scheme lives in its own module of this package with its registration, and the registry
finds them by walking the package (``ulidkeys schemes`` lists them). What it offers:

- the protocol: :class:`IdScheme` (text, pattern, time, bounds, ``new()`` where it has a
  generator), and :func:`bounds` (the exact key bounds of a time window, any scheme);
- schemes by name: :func:`scheme_named`, :func:`registration_of` (a scheme's
  :class:`Registration`: what its generator reads) and :func:`generator_for` (a generator of
  any scheme, with an injectable clock and random bits);
- the schemes most used as keys: :data:`ULID_SCHEME` (the default), :data:`UUID7`,
  :data:`UUID6`, :data:`KSUID`, :data:`OBJECT_ID`, :data:`TWITTER_SNOWFLAKE`,
  :data:`INSTAGRAM_ID`; :class:`TypeIdScheme` (``TypeIdScheme("post")``);
- UUIDs of other versions: :data:`UUID1` and MySQL's ordered form :data:`UUID1_ORDERED`
  (:func:`convert_uuid` converts between v1, v6 and it), :data:`UUID5` (``from_name``);
- Snowflake-style ids: :class:`SnowflakeGenerator`, :class:`SnowflakeScheme`,
  :class:`SnowflakeSplit` (:data:`TWITTER_SPLIT`, :data:`INSTAGRAM_SPLIT`) and
  :func:`instagram_shard_of`.

Every other scheme the registry holds (UUIDv4, Discord and Sonyflake ids, tagged ULIDs, ...)
is found by name: ``scheme_named("uuid4")``. ``ulidkeys.inspect`` tells which scheme a text is;
ticket numbers are ``ulidkeys.dynamodb``'s (``TICKET``, ``TicketSplit``, ``TicketServer``).
"""

from ulidkeys.ids.gregorian import UUID1, UUID1_ORDERED, UUID6, convert_uuid
from ulidkeys.ids.instagram import INSTAGRAM_ID, INSTAGRAM_SPLIT, instagram_shard_of
from ulidkeys.ids.ksuid import KSUID
from ulidkeys.ids.objectid import OBJECT_ID
from ulidkeys.ids.protocol import IdScheme, bounds
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import generator_for, registration_of, scheme_named
from ulidkeys.ids.snowflake import (
    TWITTER_SNOWFLAKE,
    TWITTER_SPLIT,
    SnowflakeGenerator,
    SnowflakeScheme,
    SnowflakeSplit,
)
from ulidkeys.ids.typed import TypeIdScheme
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.ids.uuid7 import UUID7
from ulidkeys.ids.uuids import UUID5

__all__ = [
    "INSTAGRAM_ID",
    "INSTAGRAM_SPLIT",
    "KSUID",
    "OBJECT_ID",
    "TWITTER_SNOWFLAKE",
    "TWITTER_SPLIT",
    "ULID_SCHEME",
    "UUID1",
    "UUID1_ORDERED",
    "UUID5",
    "UUID6",
    "UUID7",
    "IdScheme",
    "Registration",
    "SnowflakeGenerator",
    "SnowflakeScheme",
    "SnowflakeSplit",
    "TypeIdScheme",
    "bounds",
    "convert_uuid",
    "generator_for",
    "instagram_shard_of",
    "registration_of",
    "scheme_named",
]
