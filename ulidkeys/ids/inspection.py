"""``inspect(text)``: what an id is (scheme, time, fields), recognised from its text alone.

Readers are tried in one documented order (:data:`READERS`); text that several schemes accept
(a 19-digit number is a Snowflake of which epoch?) gives every reading, the first on top.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from ulidkeys import base32
from ulidkeys.errors import InvalidId, InvalidType, InvalidValue, describe
from ulidkeys.ids.protocol import IdScheme, is_id_scheme
from ulidkeys.ids.registration import (
    Field,
    FieldsOf,
    Reading,
    Registration,
    no_fields,
    same_text,
)
from ulidkeys.ids.registry import BY_NAME, READINGS, REGISTRATIONS, names, registration_of
from ulidkeys.timeinput import MAX_DATETIME_MS, format_ms, ms_to_datetime

#: 0001-01-01T00:00:00Z, the first millisecond a datetime can hold (v1 ids reach back to 1582).
_FIRST_DATETIME_MS = -62_135_596_800_000


@dataclass(frozen=True)
class Inspection:
    """One reading of an id: its scheme, canonical text, time (aware UTC, or None for ids
    without one) and fields (``version``, ``node``, ``shard``, ``sequence``, ``counter``,
    ``random``, ... as the scheme has them; bit fields as ints, opaque parts as hex).

    ``forms`` are the id in the spellings other tools use (:data:`FORM_NAMES`); ``notes``
    other ways to read the text that are not ids (a Unix time) or a near miss (a ULID with one
    character too many). ``alternatives`` holds the other readings of ambiguous text, in
    :data:`READERS` order; ``candidates`` is this reading followed by them.

    JSON names (:meth:`as_dict`) are snake_case; numbers that may pass 2**53 (``int``) are
    strings, so JavaScript readers keep every digit.
    """

    scheme: str
    id: str
    time: datetime | None
    timestamp_ms: int | None
    fields: Mapping[str, Field] = field(hash=False)
    alternatives: tuple[Inspection, ...] = ()
    forms: Mapping[str, str] = field(default_factory=dict, hash=False)
    notes: tuple[str, ...] = ()

    @property
    def candidates(self) -> tuple[Inspection, ...]:
        return (self, *self.alternatives)

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: what ``ulidkeys inspect --json`` prints for one id."""
        result = _as_dict(
            self.scheme, self.id, self.timestamp_ms, dict(self.fields), dict(self.forms)
        )
        if self.notes:
            result["notes"] = list(self.notes)
        if self.alternatives:
            result["alternatives"] = [
                {
                    key: value
                    for key, value in alt.as_dict().items()
                    if key not in ("alternatives", "notes")
                }
                for alt in self.alternatives
            ]
        return result


def _as_dict(
    scheme: str, canonical: str, ms: int | None, fields: dict[str, Field], forms: dict[str, str]
) -> dict[str, Any]:
    """One reading as JSON-safe data (:meth:`Inspection.as_dict` without notes and
    alternatives)."""
    return {
        "scheme": scheme,
        "id": canonical,
        "time": None if ms is None else format_ms(ms),
        "timestamp_ms": ms,
        "fields": fields,
        "forms": forms,
    }


def _decoded(scheme: IdScheme, text: str) -> tuple[str, int, int | None]:
    """``(canonical text, numeric form, time or None)`` of an id: from one decoding where the
    scheme offers it (``decoded``: parse, to_int and timestamp_ms would each decode the text,
    three times for every id of a listing), by the protocol otherwise."""
    decoded = getattr(scheme, "decoded", None)
    if decoded is not None:
        return decoded(text)  # type: ignore[no-any-return]
    canonical = scheme.parse(text)
    value = scheme.to_int(canonical)
    try:
        return canonical, value, scheme.timestamp_ms(canonical)
    except InvalidValue:  # v3/v4/v5, nil and max hold no time (the text is valid by now)
        return canonical, value, None


#: One decoded reading: the fields of its registration, its scheme, the text as spelled for
#: it, and the canonical text, numeric form and time (None: none) :func:`_decoded` gives.
_Decoded = tuple[FieldsOf, IdScheme, str, str, int, "int | None"]


def _reading(fields: FieldsOf, scheme: IdScheme, text: str) -> Inspection:
    return _inspection((fields, scheme, text, *_decoded(scheme, text)))


def _inspection(decoded: _Decoded) -> Inspection:
    fields, scheme, text, canonical, value, ms = decoded
    in_range = ms is not None and _FIRST_DATETIME_MS <= ms <= MAX_DATETIME_MS
    when = ms_to_datetime(ms) if in_range and ms is not None else None
    return Inspection(
        scheme=scheme.name,
        id=canonical,
        time=when,
        timestamp_ms=ms,
        fields=MappingProxyType(fields(scheme, value)),
        forms=MappingProxyType(_forms(scheme, text, value)),
    )


#: The forms ``inspect`` gives, where they apply: ``int`` (decimal, as a string), ``hex``
#: (zero-padded to the id's width), ``uuid`` (a 128-bit id as a UUID, e.g. a ULID for a
#: database column), ``ulid`` (a 128-bit id as a ULID, e.g. a UUIDv7's), ``decimal`` (a
#: numeric id as usually typed) and ``key`` (its fixed-width form, which sorts: the ``id``).
FORM_NAMES = ("int", "hex", "uuid", "ulid", "decimal", "key")


def _forms(scheme: IdScheme, text: str, value: int) -> dict[str, str]:
    bits = getattr(scheme, "bits", None)
    forms = {"int": str(value)}
    if isinstance(bits, int):
        forms["hex"] = f"{value:0{(bits + 3) // 4}x}"
    if bits == 128:
        hexed = forms["hex"]  # str(uuid.UUID(int=value)), without making the object
        forms["uuid"] = f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"
        if scheme.name != "ulid":
            forms["ulid"] = base32.encode_ulid(value)
    if scheme.numeric:
        forms["decimal"] = str(value)
        forms["key"] = scheme.from_int(value)
    return forms


def _could_be(scheme: IdScheme | None) -> Callable[[str], bool]:
    """A cheap test that is False only where ``scheme.parse`` would refuse the text: the
    length (and the digits of a numeric scheme), checked before a refusal's message is built
    (reading a listing, most readers refuse most lines)."""
    if scheme is None:  # a family: the member, so its length, depends on the text
        return lambda text: True
    length = scheme.length
    could_read = getattr(scheme, "could_read", None)  # a scheme's own quick test, if it has one
    if could_read is not None:
        return lambda text: len(text) == length and bool(could_read(text))
    if scheme.numeric:
        return lambda text: 0 < len(text) <= length and text.isascii() and text.isdigit()
    return lambda text: len(text) == length


def _reader(reading: Reading, entry: Registration) -> Callable[[str], list[Inspection]]:
    could_be = _could_be(entry.scheme)

    def read(text: str) -> list[Inspection]:
        spelled = reading.spelling(text)
        if spelled is None or not could_be(spelled):
            return []
        try:
            return [_reading(entry.fields, entry.scheme_for(spelled), spelled)]
        except InvalidId:
            return []

    return read


#: The order in which ``inspect`` reads text, derived from the registry: ULID, TypeID (its
#: prefix-less form is a lowercase ULID), tagged ULIDs, the UUIDs by version (v7, v6, v1, v3,
#: v4, v5, nil, max), MySQL's ordered v1 (32 hex), a UUID written as 32 hex, KSUID, ObjectId,
#: then Snowflakes: Twitter, Discord, Instagram (a decimal number says nothing about its
#: epoch; pass ``scheme=`` to choose).
READERS: tuple[Callable[[str], list[Inspection]], ...] = tuple(
    _reader(reading, entry) for reading, entry in READINGS
)


#: A reader of a spelled text of known length: what is left to test before any parse (None:
#: nothing) and its registration.
_Reader = tuple["Callable[[str], object] | None", Registration]


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _left_to_test(
    scheme: IdScheme | None, length: int
) -> tuple[bool, Callable[[str], object] | None]:
    """Whether a scheme's text may have ``length`` characters (a family's always may), and
    what :func:`_could_be` tests beyond the length: the scheme's own quick test, or the digits
    of a numeric scheme."""
    if scheme is None:
        return True, None
    fits = 0 < length <= scheme.length if scheme.numeric else length == scheme.length
    could_read: Callable[[str], object] | None = getattr(scheme, "could_read", None)
    return fits, could_read if could_read is not None else _digits if scheme.numeric else None


class _Run:
    """Readers next to each other in :data:`READERS` order that read one spelling of the text,
    with the ones a spelled text's length leaves, told once per length (a listing's lines
    mostly share one): most lines try a few readers, not every one."""

    def __init__(self, reading: Reading) -> None:
        self.spelling = reading.spelling
        self.lengths = reading.lengths
        self.entries: list[Registration] = []
        #: The readers of each spelled length told so far (:meth:`of_length`).
        self.by_length: dict[int, tuple[_Reader, ...]] = {}

    def of_length(self, length: int) -> tuple[_Reader, ...]:
        found = self.by_length.get(length)
        if found is None:
            found = tuple(
                (test, entry)
                for entry in self.entries
                for fits, test in [_left_to_test(entry.scheme, length)]
                if fits
            )
            if len(self.by_length) < 256:  # a hostile stream of every length stays bounded
                self.by_length[length] = found
        return found

    def reads(self, length: int) -> bool:
        """Whether any of its readers may read a text of ``length`` characters."""
        if self.lengths is not None:
            return length in self.lengths
        return self.spelling is not same_text or bool(self.of_length(length))


def _runs() -> tuple[_Run, ...]:
    runs: list[_Run] = []
    for reading, entry in READINGS:
        if not runs or runs[-1].spelling is not reading.spelling:
            runs.append(_Run(reading))
        elif runs[-1].lengths != reading.lengths:
            raise InvalidValue(f"scheme {entry.name}: one spelling read with other lengths")
        runs[-1].entries.append(entry)
    return tuple(runs)


#: One step of reading a text of a given length: a run, and its readers when the text is read
#: as it is (None: as the run spells it, so the readers depend on the spelled length).
_Step = tuple[_Run, "tuple[_Reader, ...] | None"]


def _steps_for(length: int) -> tuple[_Step, ...]:
    """The steps of reading a text of ``length`` characters: the runs that may read it, in
    :data:`READERS` order (told once per length)."""
    found = _STEPS.get(length)
    if found is None:
        found = tuple(
            (run, run.of_length(length) if run.spelling is same_text else None)
            for run in _RUNS
            if run.reads(length)
        )
        if len(_STEPS) < 256:  # a hostile stream of every length stays bounded
            _STEPS[length] = found
    return found


#: What :data:`READERS` do, as data: runs of readers of one spelling, in the same order.
_RUNS: tuple[_Run, ...] = _runs()
_STEPS: dict[int, tuple[_Step, ...]] = {}


def inspect(text: str, scheme: IdScheme | str | None = None) -> Inspection:
    """What id ``text`` is: scheme, canonical text, time (aware UTC) and fields.

    Without ``scheme`` every supported scheme is tried in :data:`READERS` order; ambiguous
    text returns the first reading with the others in ``.alternatives``. ``scheme`` (an
    :class:`IdScheme` or a name such as ``"discord-snowflake"`` or ``"typeid"``) reads it as
    that scheme only. Text no scheme accepts raises InvalidId (a ValueError) with each
    scheme's reason.
    """
    if not isinstance(text, str):
        text = _text_of_object(text)
    text = text.strip()  # as pasted from a log or a console: the spaces are not the id's
    if scheme is not None:
        fields, chosen = _scheme_named(scheme, text)
        return _reading(fields, chosen, text)
    found = [_inspection(decoded) for decoded in _decoded_readings(text)]
    if not found:
        near = _near_misses(text)
        also = f" ({near[0]})" if near else ""
        raise InvalidId(
            f"{describe(text)} is no id of any supported scheme{also}: {_reasons(text)}"
        )
    first, *rest = found
    notes = (*_timestamp_notes(text), *_near_misses(text))
    if not rest and not notes:  # most ids: one reading, nothing to add (replace() is slow)
        return first
    return dataclasses.replace(first, alternatives=tuple(rest), notes=notes)


def plain_dict(text: str) -> dict[str, Any] | None:
    """``inspect(text).as_dict()`` for text that reads as one id of one scheme with nothing to
    note - most lines of a listing - made without the objects; None for any other text
    (``inspect`` says what it is, or why it is none)."""
    text = text.strip()
    found = _decoded_readings(text)
    if len(found) != 1 or _timestamp_notes(text) or _near_misses(text):
        return None
    fields, scheme, spelled, canonical, value, ms = found[0]
    return _as_dict(
        scheme.name, canonical, ms, fields(scheme, value), _forms(scheme, spelled, value)
    )


def _decoded_readings(text: str) -> list[_Decoded]:
    """Every reading of ``text`` (stripped) in :data:`READERS` order, one per scheme."""
    found: list[_Decoded] = []
    named: set[str] = set()
    # READERS, unrolled: only the runs that may read a text of its length, each spelling
    # made once (eight UUID readers share one), only the readers of its length tried, the
    # rest of the length told before any parse, a scheme already read not read again (a
    # UUID's text is read as 8-4-4-4-12 and as 32 hex); a listing read line by line pays this
    # loop once per line
    for run, readers in _STEPS.get(len(text)) or _steps_for(len(text)):
        if readers is None:
            spelled = run.spelling(text)
            if spelled is None:
                continue
            readers = run.by_length.get(len(spelled)) or run.of_length(len(spelled))
        else:
            spelled = text
        for test, entry in readers:
            if (test is not None and not test(spelled)) or (
                found and entry.scheme is not None and entry.name in named
            ):
                continue
            try:
                chosen = entry.scheme_for(spelled)
                decoded = (entry.fields, chosen, spelled, *_decoded(chosen, spelled))
            except InvalidId:
                continue
            if chosen.name not in named:
                found.append(decoded)
                named.add(chosen.name)
    return found


#: Libraries whose id objects print as their id's canonical text (``str(obj)``): python-ulid,
#: the standard ``uuid`` and its kin, bson's ObjectId, svix-ksuid, typeid-python, and ours.
_ID_LIBRARIES = frozenset(
    {"ulid", "uuid", "uuid6", "uuid_utils", "bson", "ksuid", "typeid", "ulidkeys"}
)


def _text_of_object(value: object) -> str:
    """The text of an id object of a library we know (read by its public ``str()``), so
    ``inspect(obj)`` names its scheme as it does for the text."""
    library = type(value).__module__.partition(".")[0]
    if library in _ID_LIBRARIES:
        return str(value)
    raise InvalidType(
        f"{describe(value)} must be the text of an id (or an id object of python-ulid, uuid, "
        f"uuid6, uuid_utils, bson, svix-ksuid or typeid-python), not {type(value).__name__}"
    )


#: Crockford's base32 alphabet, as a set.
_ALPHABET = frozenset(base32.ALPHABET)

#: Unix times people paste: seconds and milliseconds from 2001 to 2286 (10 and 13 digits).
_SECONDS = re.compile(r"[1-9][0-9]{9}")
_MILLISECONDS = re.compile(r"[1-9][0-9]{12}")


def _timestamp_notes(text: str) -> list[str]:
    """A decimal number that is also a plausible Unix time in seconds or milliseconds."""
    if not text.isdigit():  # most text read (the patterns below are of digits alone)
        return []
    if _SECONDS.fullmatch(text):
        return [f"also Unix seconds: {format_ms(int(text) * 1000)}"]
    if _MILLISECONDS.fullmatch(text):
        return [f"also Unix milliseconds: {format_ms(int(text))}"]
    return []


def _near_misses(text: str) -> list[str]:
    """Text one character longer or shorter than a ULID, in its alphabet: a likely typo."""
    if abs(len(text) - base32.ULID_LENGTH) != 1 or not _ALPHABET.issuperset(text.upper()):
        return []
    if len(text) == base32.ULID_LENGTH + 1:
        return [f"{len(text)} characters: a ULID with one extra character?"]
    if len(text) == base32.ULID_LENGTH - 1:
        return [f"{len(text)} characters: a ULID missing one character?"]
    return []


def _scheme_named(scheme: IdScheme | str, text: str) -> tuple[FieldsOf, IdScheme]:
    if is_id_scheme(scheme):
        return _fields_of(scheme), scheme
    if not isinstance(scheme, str) or scheme.strip().lower() not in BY_NAME:
        raise InvalidType(
            f"scheme={describe(scheme)} is neither an id scheme nor one of: {', '.join(names())}"
        )
    entry = registration_of(scheme)
    return entry.fields, entry.scheme_for(text)


def _fields_of(scheme: IdScheme) -> FieldsOf:
    """The fields of a scheme object: its registration's, that of the family it is a member
    of, or of the registered scheme of its name; none for a scheme no module registered."""
    for entry in REGISTRATIONS:
        if entry.scheme is scheme or (entry.scheme is None and type(scheme) is type(entry.sample)):
            return entry.fields
    named = BY_NAME.get(scheme.name)
    return named.fields if named is not None else no_fields


def _reasons(text: str) -> str:
    """Why the schemes whose text has this length refused it, or which lengths there are."""
    reasons = []
    for entry in REGISTRATIONS:
        scheme = entry.sample
        if not entry.explains_refusals or scheme is None:
            continue
        fits = len(text) == scheme.length or (
            scheme.numeric and text.isdigit() and len(text) < scheme.length
        )
        if fits:
            try:
                scheme.parse(text)
            except InvalidId as error:
                reasons.append(f"as {scheme.name}: {error}")
    if reasons:
        return "; ".join(reasons)
    if text.isascii() and text.isdigit() and len(text) <= 40 and int(text) >> 64:
        return (
            f"it is past 2**64 - 1 ({2**64 - 1}), the largest 64-bit id (Snowflakes and "
            "the other numeric ids are 64-bit)"
        )
    return f"it has {len(text)} characters; id lengths: {_LENGTHS}"


def _lengths() -> str:
    """The text lengths of the schemes ``inspect`` guesses, from the registry (so a new scheme
    module is listed with no edit here): ``26 for ulid, ulid-tag1; 36 for uuid7, ...``; a
    family by its example member."""
    by_size: dict[str, list[str]] = {}
    for entry in REGISTRATIONS:
        scheme = entry.sample
        if scheme is None or not entry.readings:
            continue
        size = f"up to {scheme.length} digits" if scheme.numeric else str(scheme.length)
        by_size.setdefault(size, []).append(scheme.name)
    return "; ".join(f"{size} for {', '.join(found)}" for size, found in by_size.items())


_LENGTHS = _lengths()
