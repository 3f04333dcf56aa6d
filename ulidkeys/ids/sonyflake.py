"""Sonyflake (github.com/sony/sonyflake): 39 bits of 10 ms steps since 2014-09-01, an 8-bit
sequence, then a 16-bit machine id; a 63-bit number written as zero-padded decimal.

A scheme declared in its own file: the registry finds it, so layouts, entities, windows,
``inspect(..., scheme="sonyflake")``, the CLI and the every-scheme suites take it unedited.
"""

from __future__ import annotations

from ulidkeys.ids.snowflake import SnowflakeScheme, SnowflakeSplit, snowflake_registration

#: 2014-09-01T00:00:00Z, Sonyflake's default start time.
SONYFLAKE_EPOCH_MS = 1_409_529_600_000

#: Sonyflake ids: time in 10 ms steps; times end in 2188.
SONYFLAKE = SnowflakeScheme(
    "sonyflake", epoch_ms=SONYFLAKE_EPOCH_MS, shift=24, bits=63, resolution_ms=10
)
#: The sequence sits above the machine id (Twitter's layout has the node above).
SONYFLAKE_SPLIT = SnowflakeSplit(SONYFLAKE, sequence_bits=8, sequence_first=True)

#: Not guessed by ``inspect``: a decimal number is read as Twitter, Discord and Instagram ids
#: already; name it (``scheme="sonyflake"``) to read it as this one.
REGISTRATIONS = (
    snowflake_registration(
        SONYFLAKE_SPLIT,
        node_name="machine_id",
        summary="Sony: 39 bits of 10 ms steps since 2014-09-01, 8-bit sequence, 16-bit machine",
    ),
)
