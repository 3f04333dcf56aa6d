"""Discord's Snowflakes: unsigned 64-bit ids, 42 bits of ms since 2015-01-01, a 5-bit worker,
a 5-bit process and a 12-bit increment.
"""

from __future__ import annotations

from ulidkeys.ids.registration import Field, Reading
from ulidkeys.ids.snowflake import SnowflakeScheme, SnowflakeSplit, snowflake_registration

#: Discord: unsigned 64-bit ids, 42 bits of ms since 2015-01-01; times end in 2154.
DISCORD_SNOWFLAKE = SnowflakeScheme("discord-snowflake", epoch_ms=1_420_070_400_000, bits=64)


#: Discord: 5-bit worker and 5-bit process ids (one 10-bit node here), 12-bit increment.
DISCORD_SPLIT = SnowflakeSplit(DISCORD_SNOWFLAKE, sequence_bits=12)


def _discord_fields(_: object, value: int) -> dict[str, Field]:
    return {
        "worker": (value >> 17) & 0x1F,
        "process": (value >> 12) & 0x1F,
        "increment": value & 0xFFF,
    }


REGISTRATIONS = (
    snowflake_registration(
        DISCORD_SPLIT,
        fields=_discord_fields,
        readings=(Reading(80.2),),
        summary="Discord: 42-bit ms since 2015-01-01, worker, process, increment (64-bit)",
    ),
)
