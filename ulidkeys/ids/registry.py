"""Every id scheme by name: the one list ``inspect``, ``ulidkeys.ids``, the CLI, the docs' scheme
table and the every-scheme test suites derive from.

Each module of ``ulidkeys.ids`` declares its schemes in a ``REGISTRATIONS`` tuple (see
:mod:`ulidkeys.ids.registration`); this module finds them by walking the package, so adding a
scheme is adding its file: no list elsewhere names it.
"""

from __future__ import annotations

import importlib
import pkgutil
import secrets
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from ulidkeys.errors import InvalidValue, describe, require_str
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.generators import IdGenerator, require_source, wall_ms
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import Clock, RandBits, Reading, Registration

#: Modules of the package that import this one (so are not scheme modules).
_ABOVE = frozenset({"registry", "inspection", "pasted"})


def _scheme_modules() -> Iterator[str]:
    folder = Path(__file__).parent
    for module in sorted(pkgutil.iter_modules([str(folder)]), key=lambda m: m.name):
        if module.name not in _ABOVE and not module.ispkg:
            yield f"{__package__}.{module.name}"


def _first_reading(registration: Registration) -> float:
    return min((reading.order for reading in registration.readings), default=float("inf"))


def _collect() -> tuple[Registration, ...]:
    found: list[Registration] = []
    for name in _scheme_modules():
        module = importlib.import_module(name)
        found.extend(getattr(module, "REGISTRATIONS", ()))
    # inspect's reading order first (ULID first); schemes never guessed last, in file order
    return tuple(sorted(found, key=_first_reading))


#: Every registered scheme: in ``inspect``'s reading order, those it never guesses last.
REGISTRATIONS: tuple[Registration, ...] = _collect()


def _by_name() -> Mapping[str, Registration]:
    names: dict[str, Registration] = {}
    for registration in REGISTRATIONS:
        for name in (registration.name, *registration.aliases):
            if name in names:
                raise InvalidValue(f"two id schemes are registered as {name!r}")
            names[name] = registration
    return MappingProxyType(names)


#: Name or alias -> registration.
BY_NAME: Mapping[str, Registration] = _by_name()

#: Every way ``inspect`` guesses, in the order it tries them: ``(reading, registration)``.
READINGS: tuple[tuple[Reading, Registration], ...] = tuple(
    sorted(
        (
            (reading, registration)
            for registration in REGISTRATIONS
            for reading in registration.readings
        ),
        key=lambda pair: pair[0].order,
    )
)


#: Every registered single scheme (not a family) whose text sorts by time, in registry order
#: (ULID first): what the every-scheme suites and tools parametrize over. A new scheme module
#: joins it with no other edit.
SCHEMES: tuple[IntCodedScheme, ...] = tuple(
    registration.scheme
    for registration in REGISTRATIONS
    if isinstance(registration.scheme, IntCodedScheme) and registration.scheme.sorts_by_time
)


def names() -> tuple[str, ...]:
    """The names of every registered scheme, in registry order (aliases left out)."""
    return tuple(registration.name for registration in REGISTRATIONS)


def registration_of(name: object) -> Registration:
    """The registration called ``name`` (or an alias of it); InvalidValue listing the names."""
    text = require_str(name, "scheme")
    found = BY_NAME.get(text.strip().lower())
    if found is None:
        raise InvalidValue(
            f"scheme={describe(name)} is not a known id scheme; one of: {', '.join(names())}"
        )
    return found


def scheme_named(name: object, text: str | None = None) -> IdScheme:
    """The scheme called ``name``. A family names its member after a colon (``typeid:post``);
    else ``text`` picks it (a TypeID's prefix), else the family's example member is given."""
    family, colon, member = require_str(name, "scheme").partition(":")
    found = registration_of(family if colon else name)
    if colon:
        if found.member is None:
            raise InvalidValue(
                f"scheme={describe(name)}: {found.name} has no members to name after ':'"
            )
        return found.member(member)
    if found.scheme is not None:
        return found.scheme
    if text is None:
        assert found.sample is not None
        return found.sample
    return found.scheme_for(text)


def sortable_samples() -> tuple[IdScheme, ...]:
    """One scheme of every registration whose text sorts by time: what the S3 and DynamoDB
    window suites run over."""
    return tuple(r.sample for r in REGISTRATIONS if r.sample is not None and r.sample.sorts_by_time)


def generator_for(
    name: object,
    *,
    clock: Clock | None = None,
    randbits: RandBits | None = None,
    node: int | None = None,
) -> Callable[[], str]:
    """A generator of new ids of the scheme called ``name`` (``"ksuid"``, ``"typeid:post"``,
    ...): each call gives a new id's canonical text.

    One protocol for every scheme: ``clock`` gives epoch milliseconds (default: the wall
    clock) and ``randbits(k)`` ``k`` random bits (default: :func:`secrets.randbits`), so a
    fixed clock and a seeded ``random.Random().getrandbits`` make reproducible ids. Node-based
    schemes (Snowflakes, ``Registration.takes_node``) need ``node=``, this machine's or shard's
    number, and the others refuse one (it would be ignored). InvalidValue for a
    scheme whose ids are not made here (tickets come from a ticket server, UUIDv3/v5 from a
    name).
    """
    family = require_str(name, "scheme").partition(":")[0]
    registration = registration_of(family)
    scheme = scheme_named(name)
    if not registration.generated:
        raise InvalidValue(
            f"scheme={describe(name)}: {registration.name} ids are not made from a clock and "
            "random bits (" + (registration.summary or "no generator") + ")"
        )
    clock = wall_ms if clock is None else clock
    randbits = secrets.randbits if randbits is None else randbits
    require_source(clock, "clock", "epoch milliseconds")
    require_source(randbits, "randbits", "k random bits")
    if node is not None and not registration.takes_node:
        # checked here, not left to each generator: one that ignored node= would let
        # `ulidkeys new --node` be silently dropped
        raise InvalidValue(f"scheme={describe(name)}: {registration.name} ids have no node")
    if registration.generator is not None:
        return registration.generator(scheme, clock, randbits, node)
    assert isinstance(scheme, IntCodedScheme)  # every registered scheme is one
    return IdGenerator(scheme, clock=clock, randbits=randbits)
