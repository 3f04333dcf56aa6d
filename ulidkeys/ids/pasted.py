"""What users paste, read: the id inside an S3 key, a DynamoDB key, an ``s3://`` or ``https://``
S3 URL or a braced UUID, with where it sits; and a number read the way people mean it.

:func:`ulidkeys.ids.inspection.inspect` reads an id's text and nothing else, every reading in
its documented order. :func:`read_pasted` is what ``ulidkeys inspect`` shows for a line a user
pasted: it finds the id in the text around it (:class:`Pasted` says where, so a layout that
reads such keys can be named) and weighs decimal numbers, whose reading depends on an epoch
the text does not say:

* a number whose Snowflake readings all fall within a day of their epoch (``42``) is no
  Snowflake anyone made: it is refused, unless a Unix time;
* a plain Unix time (10 digits: seconds, 13: milliseconds, 2001 to 2286) is read as that
  time first (``unix-seconds`` / ``unix-milliseconds``), the Snowflakes after it;
* when several Snowflake readings are plausible (Discord's documented
  ``175928847299117063`` is a 2012 Twitter id and a 2016 Discord id alike), ``ambiguous``
  names them all, so the caller says so before any one reading.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from types import MappingProxyType
from urllib.parse import parse_qs, unquote, urlsplit

from ulidkeys.errors import InvalidId, describe
from ulidkeys.ids.inspection import Inspection, inspect
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registry import scheme_named
from ulidkeys.timeinput import format_ms, ms_to_datetime, now_ms

#: A Snowflake reading whose time is less than this past its scheme's epoch is no id that was
#: made (the first day of an epoch); the bound also keeps 10 and 13 digit Unix times apart from
#: Snowflakes (a Twitter id of 13 digits is from its first 5 minutes).
PLAUSIBLE_AFTER_EPOCH_MS = 86_400_000
#: ... nor one from more than a day ahead of now.
PLAUSIBLE_AHEAD_MS = 86_400_000

#: Unix times people paste: seconds and milliseconds from 2001 to 2286 (10 and 13 digits).
_SECONDS = re.compile(r"[1-9][0-9]{9}")
_MILLISECONDS = re.compile(r"[1-9][0-9]{12}")

#: Candidates for an id inside a key: a dashed UUID, a TypeID, a run of letters and digits.
_CANDIDATES = re.compile(
    r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
    r"|[a-z](?:[a-z_]{0,61}[a-z])?_[0-9a-z]{26}(?![0-9A-Za-z])"
    r"|[0-9A-Za-z]+"
)
#: A number shorter than this inside a key is a date part, a shard or a count, not an id.
_MIN_DIGITS_IN_KEY = 10
#: Hosts of S3 URLs: virtual-hosted (``BUCKET.s3[.-]REGION.amazonaws.com``) or path-style.
_S3_HOST = re.compile(
    r"(?:(?P<bucket>.+)\.)?s3(?:[.-](?:dualstack\.)?[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?"
)


@dataclass(frozen=True)
class Pasted:
    """A pasted text and the id read in it.

    ``key`` is the text the id sits in (an S3 URL's key, the text inside braces, else the
    text), ``start``/``end`` where the id is in it, ``bucket`` an S3 URL's bucket (else None).
    ``reading`` is the id's :class:`Inspection`; for a plain Unix time its ``scheme`` is
    ``unix-seconds`` or ``unix-milliseconds``. ``ambiguous`` names every plausible reading
    when there are several (the caller says so first), else it is empty.
    """

    text: str
    key: str
    start: int
    end: int
    bucket: str | None
    reading: Inspection
    ambiguous: tuple[str, ...] = ()

    @property
    def before(self) -> str:
        """The key's text before the id (a prefix, folders, ``Post#``)."""
        return self.key[: self.start]

    @property
    def after(self) -> str:
        """The key's text after the id (a suffix such as ``.jpg``)."""
        return self.key[self.end :]

    @property
    def whole(self) -> bool:
        """Whether the text is the id alone."""
        return self.key == self.text and not self.before and not self.after


def read_pasted(text: str, scheme: IdScheme | str | None = None) -> Pasted:
    """The id in ``text`` as users paste it (see the module's documentation); InvalidId
    (a ValueError) when there is none, with the reasons of :func:`inspect`. ``scheme`` (an
    :class:`IdScheme` or a name, as :func:`inspect` takes) reads the id as that scheme only,
    and as it is: a number is not weighed."""
    text = text.strip()
    weigh = _weighed if scheme is None else _as_read
    try:  # the fast way, and most lines of a listing: the text is the id
        return weigh(text, text, 0, len(text), None, inspect(text, scheme))
    except InvalidId as error:
        refused = error
    key, bucket = unwrap(text)
    found = _id_in(key, scheme)
    if found is None:
        wrapped = _wrapped(text)
        if wrapped is None:
            raise refused
        inside, where = wrapped
        try:  # what is wrong with the id inside, not with the braces around it
            inspect(inside, scheme)
        except InvalidId as error:
            raise InvalidId(f"{describe(text)}: {where}, {error}") from None
        raise refused  # pragma: no cover - the id inside was read by _id_in already
    start, end, reading = found
    return weigh(text, key, start, end, bucket, reading)


def _wrapped(text: str) -> tuple[str, str] | None:
    """The text inside ``{...}`` or after ``urn:uuid:`` (meant to be an id alone) and where
    it is, else None."""
    if text.startswith("{") and text.endswith("}"):
        return unwrap(text)[0], "inside the braces"
    if text.lower().startswith("urn:uuid:"):
        return unwrap(text)[0], "after urn:uuid:"
    return None


def unwrap(text: str) -> tuple[str, str | None]:
    """``(key, bucket)`` of a pasted text: an ``s3://`` URL's, an S3 ``https://`` URL's (its
    path decoded), an S3 console URL's ``prefix``, an ARN's; ``{...}`` and ``urn:uuid:`` around
    a UUID removed; anything else as it is (bucket None)."""
    if text.startswith("{") and text.endswith("}"):
        return text[1:-1].strip(), None
    if text.lower().startswith("urn:uuid:"):
        return text[len("urn:uuid:") :], None
    if text.startswith("arn:aws:s3:::"):
        bucket, _, key = text[len("arn:aws:s3:::") :].partition("/")
        return key, bucket or None
    if text.startswith("s3://"):
        bucket, _, key = text[len("s3://") :].partition("/")
        return key, bucket or None
    if text.startswith(("https://", "http://")):
        return _https_key(text)
    return text, None


def _https_key(url: str) -> tuple[str, str | None]:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = unquote(parts.path).lstrip("/")
    if host.endswith("console.aws.amazon.com"):  # .../s3/object/BUCKET?prefix=KEY
        prefix = parse_qs(parts.query).get("prefix", [""])[0]
        bucket = path.rstrip("/").rpartition("/")[2] or None
        return (prefix, bucket) if prefix else (path, None)
    matched = _S3_HOST.fullmatch(host)
    if matched is None:  # a CDN or another store: the path is the key
        return path, None
    if matched["bucket"]:
        return path, matched["bucket"]
    bucket, _, key = path.partition("/")
    return key, bucket or None


def _id_in(key: str, scheme: IdScheme | str | None = None) -> tuple[int, int, Inspection] | None:
    """The first id in ``key`` (of ``scheme`` when given) that is no bare number (a number of
    10 or more digits if none is): ``(start, end, reading)``."""
    numbers: list[tuple[int, int, Inspection]] = []
    for candidate in _CANDIDATES.finditer(key):
        part = candidate[0]
        digits = part.isdigit()
        if digits and len(part) < _MIN_DIGITS_IN_KEY:
            continue
        try:
            reading = inspect(part, scheme)
        except InvalidId:
            continue
        if not digits:
            return candidate.start(), candidate.end(), reading
        numbers.append((candidate.start(), candidate.end(), reading))
    return max(numbers, key=lambda found: found[1] - found[0], default=None)


def _as_read(
    text: str, key: str, start: int, end: int, bucket: str | None, reading: Inspection
) -> Pasted:
    """The reading as it is (a scheme was named: no number is weighed)."""
    return Pasted(text, key, start, end, bucket, reading)


def _weighed(
    text: str, key: str, start: int, end: int, bucket: str | None, reading: Inspection
) -> Pasted:
    """The reading of a number weighed: implausible Snowflakes dropped, a Unix time first,
    several plausible readings named."""
    pasted = Pasted(text, key, start, end, bucket, reading)
    id_text = key[start:end]
    if not (id_text.isascii() and id_text.isdigit()):
        return pasted
    now = now_ms()
    plausible = tuple(c for c in reading.candidates if _plausible(c, now))
    timestamp = _timestamp_reading(id_text, reading)
    if timestamp is not None:
        return dataclasses.replace(
            pasted, reading=dataclasses.replace(timestamp, alternatives=plausible)
        )
    if not plausible:
        readings = ", ".join(f"{c.scheme} {_when(c)}" for c in reading.candidates)
        raise InvalidId(
            f"{describe(id_text)} is no id anyone made: its time would be within a day of "
            f"each scheme's epoch ({readings}); pass --scheme to read it as one anyway"
        )
    first, *rest = plausible
    chosen = dataclasses.replace(first, alternatives=tuple(rest), notes=reading.notes)
    names = tuple(c.scheme for c in plausible) if rest else ()
    return dataclasses.replace(pasted, reading=chosen, ambiguous=names)


def _when(reading: Inspection) -> str:
    return "no time" if reading.timestamp_ms is None else format_ms(reading.timestamp_ms)


def _plausible(reading: Inspection, now: int) -> bool:
    """Whether a numeric reading's time is one an id was made at (past its epoch's first day,
    not more than a day ahead of ``now``); readings of other schemes all are."""
    ms = reading.timestamp_ms
    if ms is None:
        return True
    scheme = scheme_named(reading.scheme, reading.id)
    if not scheme.numeric:
        return True
    epoch = getattr(scheme, "min_ms", 0)
    return epoch + PLAUSIBLE_AFTER_EPOCH_MS <= ms <= now + PLAUSIBLE_AHEAD_MS


def _timestamp_reading(text: str, reading: Inspection) -> Inspection | None:
    """A plain Unix time in seconds (10 digits) or milliseconds (13), as a reading."""
    if _SECONDS.fullmatch(text):
        scheme, ms = "unix-seconds", int(text) * 1000
    elif _MILLISECONDS.fullmatch(text):
        scheme, ms = "unix-milliseconds", int(text)
    else:
        return None
    return Inspection(
        scheme=scheme,
        id=text,
        time=ms_to_datetime(ms),
        timestamp_ms=ms,
        fields=MappingProxyType({}),
        forms=MappingProxyType({"int": text}),
    )
