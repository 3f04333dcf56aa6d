"""How a scheme module declares its schemes: a :class:`Registration` per scheme (name, aliases,
how ``inspect`` may guess it and in which order, its fields, an example for the test suites).

Data only. Each module of ``ulidkeys.ids`` lists its registrations in a module-level
``REGISTRATIONS`` tuple; :mod:`ulidkeys.ids.registry` finds them, so a new scheme is one file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ulidkeys.errors import InvalidValue, describe
from ulidkeys.ids.protocol import IdScheme

#: A field of an inspected id: bit fields as ints, opaque parts as hex text.
Field = int | str
#: The fields of an id, from its scheme and numeric form.
FieldsOf = Callable[[IdScheme, int], dict[str, Field]]
#: Epoch milliseconds now (a generator's clock; tests inject a fixed or stepping one).
Clock = Callable[[], int]
#: ``k`` random bits as an int (``secrets.randbits``; tests inject a seeded ``Random``'s).
RandBits = Callable[[int], int]
#: How a scheme's generator is made: ``make(scheme, clock, randbits, node)`` returns a callable
#: giving a new id's canonical text at each call. ``node`` is the machine or shard number of
#: node-based schemes (Snowflakes: ``Registration(takes_node=True)``), always None for the others:
#: the registry refuses ``node=`` for a scheme that does not declare it takes one.
MakeGenerator = Callable[[IdScheme, Clock, RandBits, "int | None"], Callable[[], str]]


def same_text(text: str) -> str | None:
    """The default spelling: read the text as it is."""
    return text


def no_fields(scheme: IdScheme, value: int) -> dict[str, Field]:
    return {}


def hex_digits(value: int, digits: int) -> str:
    """``value`` as ``digits`` lowercase hex digits: how opaque parts of an id are shown."""
    return f"{value:0{digits}x}"


@dataclass(frozen=True)
class Reading:
    """One way ``inspect`` may read text as a scheme without being told: tried in ascending
    ``order`` over every registered scheme (ULID's 10 comes first; ``ulidkeys schemes`` and
    :data:`ulidkeys.ids.registry.READINGS` give the whole order); ``spelling`` gives the text
    to parse, or None when the text cannot be this reading. ``lengths`` are the only lengths
    of text the spelling gives a text for (None: any), so ``inspect`` asks it of no other
    text (a listing's lines each try every reading)."""

    order: float
    spelling: Callable[[str], str | None] = same_text
    lengths: frozenset[int] | None = None


@dataclass(frozen=True)
class Registration:
    """A scheme as the registry knows it.

    ``scheme`` is the scheme object; a family whose scheme depends on the text (a TypeID's
    prefix) gives ``of_text`` instead, and ``example`` (one member) for the suites. ``readings``
    empty means ``inspect`` never guesses the scheme (every decimal number would be a ticket):
    it is read only when named. ``explains_refusals`` marks one scheme per text family whose
    reason is given when no scheme accepts a text. ``member`` makes a family's member from its
    name (``typeid:post`` names ``member("post")``). ``generator`` makes the scheme's generator
    (None: the time from the clock and every other free bit random, see
    ``ulidkeys.ids.generators.IdGenerator``); ``generated=False`` marks schemes whose ids are
    not made from a clock and random bits (tickets come from a counter, UUIDv3/v5 from a name).
    ``takes_node=True`` says the generator takes ``node=`` (Snowflakes' machine or shard
    number); for any other scheme a ``node`` (``ulidkeys new --node``) is refused, never
    silently dropped. ``clock=False`` says the generator reads no clock
    (UUIDv4 holds no time): ``ulidkeys new --at`` is refused for it.
    """

    name: str
    scheme: IdScheme | None = None
    of_text: Callable[[str], IdScheme] | None = None
    member: Callable[[str], IdScheme] | None = None
    example: IdScheme | None = None
    generator: MakeGenerator | None = None
    generated: bool = True
    clock: bool = True
    aliases: tuple[str, ...] = ()
    fields: FieldsOf = no_fields
    readings: tuple[Reading, ...] = ()
    explains_refusals: bool = False
    takes_node: bool = False
    summary: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if (self.scheme is None) == (self.of_text is None):
            raise InvalidValue(
                f"registration {describe(self.name)} needs exactly one of scheme= and of_text="
            )
        if self.scheme is not None and self.scheme.name != self.name:
            raise InvalidValue(
                f"registration {describe(self.name)} names a scheme called "
                f"{describe(self.scheme.name)}"
            )
        if self.takes_node and self.generator is None:
            raise InvalidValue(
                f"registration {describe(self.name)} takes_node=True needs the generator= "
                "that takes it"
            )
        if self.sample is None:
            raise InvalidValue(f"registration {describe(self.name)} of a family needs example=")

    @property
    def sample(self) -> IdScheme | None:
        """The scheme the every-scheme suites run: the scheme, or the family's example."""
        return self.example if self.example is not None else self.scheme

    def scheme_for(self, text: str) -> IdScheme:
        """The scheme to read ``text`` as (the family member its text names, for TypeIDs)."""
        if self.scheme is not None:
            return self.scheme
        assert self.of_text is not None  # checked at construction
        return self.of_text(text)
