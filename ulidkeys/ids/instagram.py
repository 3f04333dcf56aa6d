"""Instagram's ids: a signed Postgres bigint, ``(ms - epoch) << 23 | shard << 10 | sequence``."""

from __future__ import annotations

from ulidkeys.ids.registration import Reading
from ulidkeys.ids.snowflake import SnowflakeScheme, SnowflakeSplit, snowflake_registration

#: Instagram: a signed Postgres bigint, ``(ms - epoch) << 23 | shard << 10 | sequence``. Its
#: time field is nominally 41 bits, but the top bit must stay 0 (the id is a positive bigint),
#: so only 40 bits are usable: times end where ``(ms - epoch) << 23`` reaches 2**63, on
#: 2046-06-27 (epoch 2011-08-24 + 2**40 ms). Kept 63-bit.
INSTAGRAM_ID = SnowflakeScheme("instagram-id", epoch_ms=1_314_220_021_721, shift=23)


#: Instagram: 41 bits of ms since 2011-08-24, 13-bit logical shard, 10-bit sequence.
INSTAGRAM_SPLIT = SnowflakeSplit(INSTAGRAM_ID, sequence_bits=10)


def instagram_shard_of(text: str) -> int:
    """The logical shard (0 .. 8191) an Instagram-style id was made for."""
    return INSTAGRAM_SPLIT.node_of(text)


REGISTRATIONS = (
    snowflake_registration(
        INSTAGRAM_SPLIT,
        node_name="shard",
        aliases=("instagram",),
        readings=(Reading(80.3),),
        summary="Instagram: 41-bit ms since 2011-08-24, 13-bit logical shard, 10-bit sequence",
    ),
)
