"""A stand-in for python-ulid's ``ulid`` package, built on ulidkeys, for the vendored tests.

``shim()`` returns a module that python-ulid's ``tests/test_ulid.py`` imports as ``ulid``: its
names are ulidkeys' own objects (``ULID``, ``ULIDGenerator``, the policies), and its data modules
``constants`` and ``base32`` are reproduced from python-ulid 4.1.0 (plain numbers and the
alphabet, so nothing of python-ulid's code runs). ``ulid.default_generator`` reads and writes
``ulidkeys.ulid.default_generator``, the generator ``ULID()`` draws from, so a test that swaps
one swaps the other.
"""

from __future__ import annotations

import types

import ulidkeys
import ulidkeys.ulid as ours
from ulidkeys import base32 as our_base32

constants = types.ModuleType("ulid.constants", "python-ulid 4.1.0's constants, reproduced.")
constants.__dict__.update(
    MILLISECS_IN_SECS=1000,
    NANOSECS_IN_MILLISECS=1000000,
    MIN_RANDOMNESS=b"\x00" * 10,
    MAX_RANDOMNESS=b"\xff" * 10,
    MIN_TIMESTAMP=0,
    MAX_TIMESTAMP=2**48 - 1,
    TIMESTAMP_LEN=6,
    RANDOMNESS_LEN=10,
    BYTES_LEN=16,
    TIMESTAMP_REPR_LEN=10,
    RANDOMNESS_REPR_LEN=16,
    REPR_LEN=26,
    INT_REPR_LEN=37,
    HEX_REPR_LEN=32,
    UUID_REPR_LEN=36,
)

base32 = types.ModuleType("ulid.base32", "python-ulid 4.1.0's base32 names, on ulidkeys' codec.")
base32.__dict__.update(
    ENCODE=our_base32.ALPHABET,
    DECODE_ALPHABET=our_base32.ALPHABET + our_base32.ALPHABET.lower(),
    encode=lambda binary: our_base32.encode_ulid(int.from_bytes(binary, "big")),
    decode=lambda encoded: our_base32.decode(encoded).to_bytes(16, "big"),
)


class _UlidModule(types.ModuleType):
    """A module whose ``default_generator`` is ulidkeys', read and written through."""

    @property
    def default_generator(self) -> ours.ULIDGenerator:
        return ours.default_generator

    @default_generator.setter
    def default_generator(self, generator: ours.ULIDGenerator) -> None:
        ours.default_generator = generator


def shim() -> types.ModuleType:
    """A fresh ``ulid`` module made of ulidkeys' objects (see the module docstring)."""
    module = _UlidModule("ulid", "python-ulid's names, served by ulidkeys.")
    module.__dict__.update(
        ULID=ulidkeys.ULID,
        ULIDGenerator=ulidkeys.ULIDGenerator,
        StrictMonotonicPolicy=ulidkeys.StrictMonotonicPolicy,
        LaxMonotonicPolicy=ulidkeys.LaxMonotonicPolicy,
        PureRandomPolicy=ulidkeys.PureRandomPolicy,
        BaseMonotonicPolicy=ulidkeys.BaseMonotonicPolicy,
        MonotonicityPolicy=ulidkeys.MonotonicityPolicy,
        constants=constants,
        base32=base32,
    )
    return module
