"""Time periods, defined once: the UTC hour, day, ISO week, month or year an id's time falls in.

Each period is one :class:`PeriodDefinition` in :data:`DEFINITIONS`: its calendar arithmetic
(floor and next), its compact label (a DynamoDB bucket label: ``2024-05-17T09``, ``2024-W20``)
and its parsing, its folder level (``hr=09/``) and the period whose folder that level nests
under (``dt=2024-05-17/``), whether S3 layouts may use it, and what Athena partition projection
can do with it. :class:`Period` runs a definition, with one end of time (the last day a
four-digit year names). Every list - the layout check, the CLI's choices, config, the survey's
folder patterns, pasted-key reading, Athena, the docs' table, the test strategies - derives
from :data:`DEFINITIONS`; adding a period is adding its definition (docs/project/contributing.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from types import MappingProxyType
from typing import Any

from ulidkeys.errors import (
    InvalidLayout,
    InvalidValue,
    TimeOutOfRange,
    describe,
    require_int,
    require_str,
)
from ulidkeys.timeinput import format_ms, ms_to_datetime

HOUR_MS = 3_600_000
DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
#: Labels and folders spell a four-digit year: no period starts at or after 10000-01-01.
PARTITION_LIMIT_MS = 253_402_300_800_000

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def day_of(ms: int) -> date:
    """The UTC calendar day of an epoch millisecond."""
    return date.fromordinal(_EPOCH_ORDINAL + ms // DAY_MS)


def ms_of(day: date) -> int:
    """The first millisecond of a UTC calendar day."""
    return (day.toordinal() - _EPOCH_ORDINAL) * DAY_MS


# --- what Athena partition projection can do with a period's folder level --------------------


@dataclass(frozen=True)
class DateProjection:
    """Athena's ``date`` projection of a level: values written by a Java ``DateTimeFormatter``
    ``format``, one a ``unit`` (``DAYS``, ``MONTHS``, ...), the range open-ended (``NOW``)."""

    format: str
    unit: str


@dataclass(frozen=True)
class IntegerProjection:
    """Athena's ``integer`` projection of a nested level: ``low`` .. ``high``, zero-padded to
    ``digits`` (``hr=09/``)."""

    low: int
    high: int
    digits: int


@dataclass(frozen=True)
class EnumProjection:
    """Athena's ``enum`` projection: every label of the projected range listed, exact for any
    period, but a fixed range (no ``NOW``: new periods need the range widened) of at most Glue's
    512,000 characters of values. ``reason`` says why a ``date`` projection cannot do it."""

    reason: str


AthenaProjection = DateProjection | IntegerProjection | EnumProjection


# --- the definitions --------------------------------------------------------------------------


@dataclass(frozen=True)
class PeriodDefinition:
    """One period: how time is cut into it, and how its label and folder level are spelled.

    ``floor(ms)`` is the first millisecond of the period holding ``ms`` and ``next(first)`` the
    first of the following one (UTC calendar arithmetic; a result before 1970 or past 9999, or
    a ``ValueError`` from ``date`` there, is clipped by :class:`Period` to the end of time).
    ``label(ms)`` is the period's compact label, fixed-width with digits where it varies
    (``form`` says it in letters: ``YYYY-Www``); ``parse(label)`` the first millisecond of the
    period a label names (``ValueError`` when none; :class:`Period` checks the round trip).

    The folder level is ``key=VALUE/``: a period without ``parent`` is a top-level folder whose
    value is its label (``wk=2024-W20/``); a period with one nests its level under the parent's
    folder, its value ``value(ms)`` spelled as ``value_form`` (``dt=2024-05-17/`` then
    ``hr=09/``). ``s3``: whether S3 layouts may use it; ``athena``: how Athena projects the
    level. ``summary``: one line for the docs' table.
    """

    name: str
    summary: str
    form: str
    floor: Callable[[int], int]
    next: Callable[[int], int]
    label: Callable[[int], str]
    parse: Callable[[str], int]
    key: str
    athena: AthenaProjection
    parent: str | None = None
    value: Callable[[int], str] | None = None
    value_form: str | None = None
    s3: bool = True


def _hour_floor(ms: int) -> int:
    return ms - ms % HOUR_MS


def _hour_next(first: int) -> int:
    return first + HOUR_MS


def _hour_label(ms: int) -> str:
    return f"{_day_label(ms)}T{_hour_value(ms)}"


def _hour_value(ms: int) -> str:
    return f"{ms % DAY_MS // HOUR_MS:02d}"


def _hour_parse(text: str) -> int:
    day, _, hour = text.partition("T")
    return _day_parse(day) + int(hour) * HOUR_MS


def _day_floor(ms: int) -> int:
    return ms - ms % DAY_MS


def _day_next(first: int) -> int:
    return first + DAY_MS


def _day_label(ms: int) -> str:
    return day_of(ms).isoformat()


def _day_parse(text: str) -> int:
    return ms_of(date(int(text[0:4]), int(text[5:7]), int(text[8:10])))


def _week_floor(ms: int) -> int:
    days = ms // DAY_MS
    return (days - (days + 3) % 7) * DAY_MS  # 1970-01-01 was a Thursday: Monday is 3 days back


def _week_next(first: int) -> int:
    return first + WEEK_MS


def _week_label(ms: int) -> str:
    year, week, _ = day_of(ms).isocalendar()
    return f"{year:04d}-W{week:02d}"


def _week_parse(text: str) -> int:
    if text[4:6] != "-W":
        raise ValueError(text)
    return ms_of(date.fromisocalendar(int(text[0:4]), int(text[6:8]), 1))


def _month_floor(ms: int) -> int:
    return ms_of(day_of(ms).replace(day=1))


def _month_next(first: int) -> int:
    day = day_of(first)
    return ms_of(date(day.year + day.month // 12, day.month % 12 + 1, 1))


def _month_label(ms: int) -> str:
    return day_of(ms).isoformat()[:7]


def _month_parse(text: str) -> int:
    return ms_of(date(int(text[0:4]), int(text[5:7]), 1))


def _year_floor(ms: int) -> int:
    return ms_of(day_of(ms).replace(month=1, day=1))


def _year_next(first: int) -> int:
    return ms_of(date(day_of(first).year + 1, 1, 1))


def _year_label(ms: int) -> str:
    return f"{day_of(ms).year:04d}"


def _year_parse(text: str) -> int:
    return ms_of(date(int(text), 1, 1))


_ISO_WEEKS = (
    "Java's DateTimeFormatter spells week fields (YYYY, ww) by the JVM's locale (Sunday-first "
    "weeks in en-US: 2017-01-01 is 2017-W01 there, 2016-W52 in ISO), and a week without a "
    "weekday is no date, so Athena's date projection cannot write ISO weeks"
)

#: Every period, finest first: the one list everything else derives from.
DEFINITIONS: tuple[PeriodDefinition, ...] = (
    PeriodDefinition(
        name="hour",
        summary="a UTC hour, nested in its day's folder",
        form="YYYY-MM-DDTHH",
        floor=_hour_floor,
        next=_hour_next,
        label=_hour_label,
        parse=_hour_parse,
        key="hr",
        parent="day",
        value=_hour_value,
        value_form="HH",
        athena=IntegerProjection(0, 23, 2),
    ),
    PeriodDefinition(
        name="day",
        summary="a UTC calendar day",
        form="YYYY-MM-DD",
        floor=_day_floor,
        next=_day_next,
        label=_day_label,
        parse=_day_parse,
        key="dt",
        athena=DateProjection("yyyy-MM-dd", "DAYS"),
    ),
    PeriodDefinition(
        name="week",
        summary="an ISO 8601 week: Monday 00:00 UTC to the next Monday, numbered in its "
        "ISO week-numbering year (2021-01-01 is in 2020-W53)",
        form="YYYY-Www",
        floor=_week_floor,
        next=_week_next,
        label=_week_label,
        parse=_week_parse,
        key="wk",
        athena=EnumProjection(_ISO_WEEKS),
    ),
    PeriodDefinition(
        name="month",
        summary="a UTC calendar month",
        form="YYYY-MM",
        floor=_month_floor,
        next=_month_next,
        label=_month_label,
        parse=_month_parse,
        key="dt",
        athena=DateProjection("yyyy-MM", "MONTHS"),
    ),
    PeriodDefinition(
        name="year",
        summary="a UTC calendar year",
        form="YYYY",
        floor=_year_floor,
        next=_year_next,
        label=_year_label,
        parse=_year_parse,
        key="dt",
        athena=DateProjection("yyyy", "YEARS"),
        s3=False,
    ),
)


def _by_name() -> Mapping[str, PeriodDefinition]:
    found: dict[str, PeriodDefinition] = {}
    for definition in DEFINITIONS:
        if definition.name in found:
            raise InvalidValue(f"two periods are defined as {definition.name!r}")
        found[definition.name] = definition
    for definition in DEFINITIONS:
        if definition.parent is not None and definition.parent not in found:
            raise InvalidValue(f"period {definition.name!r} nests under no period")
        if definition.parent is None and definition.value is not None:
            raise InvalidValue(f"period {definition.name!r}: a top-level folder holds its label")
    return MappingProxyType(found)


BY_NAME: Mapping[str, PeriodDefinition] = _by_name()
#: Every period's name, finest first (DynamoDB entities take any as ``bucket=``).
PERIOD_NAMES: tuple[str, ...] = tuple(BY_NAME)
#: The periods S3 layouts may use (``KeyLayout(period=...)``, ``ls --period``).
LAYOUT_PERIOD_NAMES: tuple[str, ...] = tuple(d.name for d in DEFINITIONS if d.s3)


def _shape_pattern(sample: str) -> str:
    """A regex for texts shaped as ``sample``: its digit runs any digits of that width."""
    return re.sub(r"\d+", lambda run: rf"\d{{{len(run[0])}}}", re.escape(sample))


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(map(repr, names))


@dataclass(frozen=True)
class Period:
    """A period by name (``"hour"``, ``"day"``, ``"week"``, ``"month"``, ``"year"``, UTC): its
    definition run, clipped to the times a four-digit year names.

    ``label`` is the compact form used in DynamoDB partition keys (``2024-05-17T09``,
    ``2024-05-17``, ``2024-W20``, ``2024-05``, ``2024``); ``folder`` the Hive form used in S3
    keys (``dt=2024-05-17/hr=09/``, ``dt=2024-05-17/``, ``wk=2024-W20/``, ``dt=2024-05/``).
    A period that starts before 1970 (the ISO week of 1970-01-01) starts at 0 here, and one that
    ends past 9999 ends at :data:`PARTITION_LIMIT_MS`.
    """

    size: str
    _definition: PeriodDefinition = field(init=False, repr=False, compare=False)
    _parent: Period | None = field(init=False, repr=False, compare=False)
    _label_re: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _folder_re: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _level_re: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _folder_length: int = field(init=False, repr=False, compare=False)
    _above: tuple[Period, ...] = field(init=False, repr=False, compare=False)
    #: The last folder :meth:`folder` spelled: ``(first_ms, next_ms, folder)`` of its period
    #: (keys come sorted, so a run of keys asks for one folder again and again). Replaced
    #: whole, never changed in place: a thread reads the old tuple or the new one.
    _last_folder: tuple[int, int, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        definition = BY_NAME.get(self.size) if isinstance(self.size, str) else None
        if definition is None:
            raise InvalidValue(
                f"period={describe(self.size)} is not a period; use one of {_names(PERIOD_NAMES)}"
            )
        parent = None if definition.parent is None else Period(definition.parent)
        object.__setattr__(self, "_definition", definition)
        object.__setattr__(self, "_parent", parent)
        # the levels above this one's (not a chain holding itself: a value without cycles)
        object.__setattr__(self, "_above", () if parent is None else parent.chain)
        object.__setattr__(self, "_last_folder", (0, 0, ""))  # holds no millisecond
        folder = self.folder(0)
        object.__setattr__(self, "_label_re", re.compile(_shape_pattern(definition.label(0))))
        object.__setattr__(self, "_folder_re", re.compile(_shape_pattern(folder)))
        object.__setattr__(self, "_level_re", re.compile(_shape_pattern(self.level(0))))
        object.__setattr__(self, "_folder_length", len(folder))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Period, (self.size,))  # its definition holds functions: pickled by name

    # --- the definition ---------------------------------------------------------------------
    @property
    def definition(self) -> PeriodDefinition:
        return self._definition

    @property
    def parent(self) -> Period | None:
        """The period whose folder this one's nests under (``day`` for ``hour``)."""
        return self._parent

    @property
    def chain(self) -> tuple[Period, ...]:
        """The periods of this one's folder levels, top level first (``(day, hour)``)."""
        return (*self._above, self)

    @property
    def top(self) -> Period:
        """The period of the top folder level (``day`` for ``hour``, itself for a top level)."""
        return self.chain[0]

    @property
    def key(self) -> str:
        """The key of this period's own folder level: ``dt``, ``hr``, ``wk``."""
        return self._definition.key

    @property
    def athena(self) -> AthenaProjection:
        return self._definition.athena

    @property
    def for_layouts(self) -> bool:
        """Whether S3 layouts may use it."""
        return self._definition.s3

    # --- arithmetic -----------------------------------------------------------------------
    def check(self, ms: int) -> int:
        """``ms`` if a period can name it, else TimeOutOfRange (InvalidType if no int)."""
        require_int(ms, "ms", "epoch milliseconds (an int)")
        if not 0 <= ms < PARTITION_LIMIT_MS:
            raise TimeOutOfRange(
                f"{format_ms(ms)} is outside 1970-01-01 .. 9999-12-31, the times a {self.size} "
                "period can name (labels and folders spell a four-digit year)"
            )
        return ms

    def floor(self, ms: int) -> int:
        """The first millisecond of the period holding ``ms`` (0 at the earliest)."""
        self.check(ms)
        return max(0, self._definition.floor(ms))

    def next(self, start: int) -> int:
        """The first millisecond of the period after the one holding ``start``."""
        first = self._definition.floor(self.check(start))  # not clipped: 1970-W01 is 7 days
        try:
            following = self._definition.next(first)
        except (ValueError, OverflowError):  # a date past 9999-12-31
            return PARTITION_LIMIT_MS
        return min(following, PARTITION_LIMIT_MS)

    def spans(self, start_ms: int, end_ms: int) -> Iterator[tuple[int, int]]:
        """``(first_ms, end_ms)`` of each period that ``[start_ms, end_ms)`` touches.

        The window is clipped to the times a period can name; nothing later is yielded.
        """
        end_ms = min(end_ms, PARTITION_LIMIT_MS)
        start_ms = max(start_ms, 0)  # clipped like the end: no period starts before 1970
        current = self.floor(start_ms) if start_ms < end_ms else end_ms
        while current < end_ms:
            following = self.next(current)
            yield current, following
            current = following

    # --- spellings ------------------------------------------------------------------------
    @property
    def form(self) -> str:
        """The label's form in letters: ``YYYY-MM-DDTHH``, ``YYYY-Www``."""
        return self._definition.form

    @property
    def folder_form(self) -> str:
        """The folder's form in letters: ``dt=YYYY-MM-DD/hr=HH/``."""
        parent, definition = self.parent, self._definition
        own = f"{definition.key}={definition.value_form or definition.form}/"
        return own if parent is None else parent.folder_form + own

    def label(self, ms: int) -> str:
        """The compact label of the period holding ``ms``: ``2024-05-17T09`` for an hour."""
        return self._definition.label(self.check(ms))

    def parse_label(self, text: str) -> int | None:
        """The first millisecond of the period a label names, None if it is not a label."""
        require_str(text, "label")
        if not text.isascii() or self._label_re.fullmatch(text) is None:
            return None
        try:
            ms = max(0, self._definition.parse(text))
        except (ValueError, OverflowError):
            return None
        return ms if ms < PARTITION_LIMIT_MS and self.label(ms) == text else None

    def level_value(self, ms: int) -> str:
        """The value of this period's own folder level for ``ms``: ``09`` of ``hr=09/``."""
        value = self._definition.value
        return self.label(ms) if value is None else value(self.check(ms))

    def level(self, ms: int) -> str:
        """This period's own folder level for ``ms``: ``hr=09/``."""
        return f"{self._definition.key}={self.level_value(ms)}/"

    def folder(self, ms: int) -> str:
        """The Hive folder of the period holding ``ms``: ``dt=2024-05-17/hr=09/``."""
        first, following, folder = self._last_folder
        if type(ms) is int and first <= ms < following:  # the period asked for last
            return folder
        own = self.level(ms)  # checks ms
        folder = own if self._parent is None else self._parent.folder(ms) + own
        object.__setattr__(self, "_last_folder", (self.floor(ms), self.next(ms), folder))
        return folder

    @property
    def folder_length(self) -> int:
        """Characters of every folder of this period."""
        return self._folder_length

    @property
    def folder_pattern(self) -> re.Pattern[str]:
        """What every folder of this period matches (``dt=\\d{4}-\\d{2}-\\d{2}/hr=\\d{2}/``)."""
        return self._folder_re

    @property
    def level_pattern(self) -> re.Pattern[str]:
        """What this period's own level of every folder matches (``hr=\\d{2}/``)."""
        return self._level_re

    def parse_folder(self, folder: str) -> int | None:
        """The first millisecond of the period a folder names, None if it is not one."""
        require_str(folder, "folder")
        if len(folder) != self.folder_length or self._folder_re.fullmatch(folder) is None:
            return None
        parent = self.parent
        if parent is None:
            ms = self.parse_label(folder[len(self.key) + 1 : -1])  # a top level holds its label
        else:
            within = parent.parse_folder(folder[: parent.folder_length])
            if within is None:
                return None
            own = folder[parent.folder_length :]
            children = self.spans(within, parent.next(within))
            ms = next((first for first, _ in children if self.level(first) == own), None)
        return ms if ms is not None and self.folder(ms) == folder else None

    def __str__(self) -> str:
        return self.size


#: Every period, finest first.
PERIODS: tuple[Period, ...] = tuple(Period(name) for name in PERIOD_NAMES)
#: The periods S3 layouts may use.
LAYOUT_PERIODS: tuple[Period, ...] = tuple(p for p in PERIODS if p.for_layouts)


def layout_period(value: object) -> Period | None:
    """The :class:`Period` of a layout's ``period=`` (None for None), else InvalidLayout
    naming the periods layouts may use."""
    if value is None:
        return None
    if isinstance(value, str) and value in LAYOUT_PERIOD_NAMES:
        return Period(value)
    offered = f"None or one of {_names(LAYOUT_PERIOD_NAMES)}"
    if isinstance(value, str) and value in PERIOD_NAMES:
        raise InvalidLayout(
            f"period={value!r} is a DynamoDB bucket size that S3 layouts do not offer; use "
            f"{offered}"
        )
    raise InvalidLayout(f"period={describe(value)} must be {offered}")


def folder_forms() -> str:
    """The folders layouts write, in words: ``dt=YYYY-MM-DD/hr=HH/, dt=YYYY-MM-DD/, ...``."""
    return ", ".join(period.folder_form for period in LAYOUT_PERIODS)


#: The layout periods, a nested folder's before its parent's (it starts with the parent's).
_DEEPEST_FIRST: tuple[Period, ...] = tuple(
    sorted(LAYOUT_PERIODS, key=lambda period: -len(period.chain))
)


def folder_at_start(text: str) -> tuple[Period, int] | None:
    """The layout period whose whole folder starts ``text``, and the folder's length."""
    for period in _DEEPEST_FIRST:
        found = period.folder_pattern.match(text)
        if found is not None:
            return period, found.end()
    return None


def folder_at_end(text: str) -> tuple[Period, int] | None:
    """The layout period whose whole folder ends ``text``, and where that folder starts."""
    for period in _DEEPEST_FIRST:
        start = len(text) - period.folder_length
        if start >= 0 and period.folder_pattern.fullmatch(text, start) is not None:
            return period, start
    return None


def level_periods(depth: int, above: Period | None) -> tuple[Period, ...]:
    """The layout periods' levels at ``depth`` (0: top) under the folders of ``above`` (the
    period of the levels read so far; None at the top): each a :class:`Period` whose own level
    is the one at that depth."""
    found: list[Period] = []
    for period in LAYOUT_PERIODS:
        chain = period.chain
        nested = len(chain) > depth and (depth == 0 or chain[depth - 1] == above)
        if nested and chain[depth] not in found:
            found.append(chain[depth])
    return tuple(found)


@dataclass(frozen=True)
class PeriodFolder:
    """A period folder that holds data: its name (``dt=2024-05-17/hr=09/``) and time span."""

    folder: str
    start_ms: int
    end_ms: int

    @property
    def start(self) -> datetime:
        return ms_to_datetime(self.start_ms)
