"""Only documented exceptions escape (issue 14 item 7): every public parser and builder, fed
odd values of every type, raises nothing but ``ulidkeys.errors.UlidkeysError`` subclasses.
Bounded: each target gets the profile's examples (60 in CI), a few seconds in all."""

from __future__ import annotations

import resource
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import ids
from ulidkeys.dynamodb import Entity, Index, key_before
from ulidkeys.errors import UlidkeysError, describe
from ulidkeys.ids.registry import SCHEMES
from ulidkeys.planning.locations import check_bucket_name, check_prefix, split_s3_url
from ulidkeys.planning.periods import Period
from ulidkeys.planning.plans import Cursor
from ulidkeys.planning.prefixcover import cover, prefix_block
from ulidkeys.planning.sortkeys import key_after
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import to_ms
from ulidkeys.ulid import ULID, Monotonic

#: Long fuzzing runs: left out of `make test`, run by `make test-all` and CI.
pytestmark = pytest.mark.slow

SOME = ULID.new(1_700_000_000_000)
POST = Entity(pk="Org#{org}", sk="Post#{id}", gsi={"GSI1": Index(pk="U#{user}", sk="P#{id}")})
HOT = Entity(pk="Hot#{bucket}#{shard}", sk="Post#{id}", bucket="day", shards=4)
LAYOUT = KeyLayout("u/", shards=3, period="hour", suffix=".bin")

texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            "now",
            "2024-05-17T09:00:00Z",
            str(SOME),
            str(SOME).lower(),
            "9" * 5000,
            "day",
            "hour",
            "Org#acme",
            "u/00/dt=2024-05-17/hr=09/" + str(SOME) + ".bin",
            "\x00",
            "\ud800",
            "\u202e",
            "../",
            "%2e%2e/",
            "{id}",
            "Post#{id}",
            "-1",
            "NaN",
        ]
    ),
)
numbers = st.one_of(
    st.integers(),
    st.integers(-(2**200), 2**200),
    st.sampled_from([0, -1, 1 << 48, 1 << 64, 1 << 128, 1 << 160]),
    st.builds(lambda: 10**4400),  # repr() refuses it; a strategy listing it could not be shown
    st.floats(allow_nan=True),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.sampled_from([Decimal("NaN"), Decimal("sNaN"), Decimal("-Infinity"), Decimal("1.5")]),
    st.booleans(),
)
scalars = st.one_of(
    st.none(),
    texts,
    numbers,
    st.binary(max_size=20),
    st.datetimes(),
    st.datetimes(timezones=st.just(timezone.utc)),
    st.timedeltas(),
    st.sampled_from([SOME, uuid.uuid4(), memoryview(b"x" * 16), bytearray(16), object(), int]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["PK", "SK", "org", "id", "GSI1PK", "N", "S"]), inner),
        st.tuples(inner, inner),
    ),
    max_leaves=4,
)


def _clock(value: object) -> Callable[[], Any]:
    return lambda: value


def _cursor(value: object) -> object:
    return value


TARGETS: dict[str, tuple[Callable[..., object], int]] = {
    "ULID": (ULID, 1),
    "ULID.parse": (ULID.parse, 1),
    "ULID.from_bytes": (ULID.from_bytes, 1),
    "ULID.from_int": (ULID.from_int, 1),
    "ULID.from_uuid": (ULID.from_uuid, 1),
    "ULID.new": (ULID.new, 1),
    "ULID.min_for": (ULID.min_for, 1),
    "ULID.max_for": (ULID.max_for, 1),
    "to_ms": (to_ms, 1),
    "split_s3_url": (split_s3_url, 1),
    "check_bucket_name": (check_bucket_name, 1),
    "check_prefix": (check_prefix, 1),
    "TimeWindow": (TimeWindow, 2),
    "TimeWindow.from_ms": (TimeWindow.from_ms, 2),
    "TimeWindow.bounds": (lambda a: TimeWindow(0, 1).bounds(a), 1),
    "TimeWindow.inclusive_bounds": (lambda a, b: TimeWindow(0, 1).inclusive_bounds(a, b), 2),
    "TimeWindow.prefix_cover": (lambda a: TimeWindow(0, 10**9).prefix_cover(a), 1),
    "TimeWindow.contains": (lambda a: a in TimeWindow(0, 1), 1),
    "prefix_cover": (cover, 3),
    "prefix_block": (prefix_block, 1),
    "ids.bounds": (lambda s, w, p: ids.bounds(s, w, p), 3),
    "KeyLayout": (lambda p, s, d, x: KeyLayout(p, s, d, x), 4),
    "KeyLayout.key_for": (LAYOUT.key_for, 2),
    "KeyLayout.parse": (LAYOUT.parse, 1),
    "KeyLayout.fits": (LAYOUT.fits, 1),
    "KeyLayout.new_key": (LAYOUT.new_key, 1),
    "Entity": (lambda pk, sk, sep, bucket: Entity(pk=pk, sk=sk, separator=sep, bucket=bucket), 4),
    "Entity.gsi": (lambda g: Entity(pk="O#{org}", sk="P#{id}", gsi=g), 1),
    "Entity.shards": (lambda n: Entity(pk="O#{shard}", sk="P#{id}", shards=n), 1),
    "Entity.keys": (lambda org, i: POST.keys(org=org, id=i), 2),
    "Entity.key": (lambda org, i: HOT.key(org=org, id=i), 2),
    "Entity.parse": (POST.parse, 1),
    "Entity.position_of": (lambda a: POST.position_of(a, POST.table), 1),
    "Entity.id_of": (POST.id_of, 2),
    "key_before": (key_before, 2),
    "key_after": (key_after, 2),
    "Period": (Period, 1),
    "Period.folder": (lambda a: Period("hour").folder(a), 1),
    "Period.label": (lambda a: Period("day").label(a), 1),
    "Period.parse_label": (lambda a: Period("day").parse_label(a), 1),
    "Period.parse_folder": (lambda a: Period("hour").parse_folder(a), 1),
    "Cursor.decode": (Cursor.decode, 1),
    "Monotonic.after": (lambda a: Monotonic(after=a)(), 1),
    "Monotonic.clock": (lambda a: Monotonic(clock=_clock(a))(), 1),
    "Monotonic.batch": (lambda n: Monotonic().batch(n), 1),
    "KeyLayout.plan_window": (
        lambda a, b, after, cur, mk, d: LAYOUT.plan_window(
            a, b, after=after, cursor=cur, max_keys=mk, directory_bucket=d
        ),
        6,
    ),
    "Entity.plan_window": (
        lambda a, b, lim, idx, after, cur, org: POST.plan_window(
            a, b, limit=lim, index=idx, after=after, cursor=cur, org=org
        ),
        7,
    ),
}
for scheme in SCHEMES:
    for method in ("parse", "from_int", "min_for", "max_for", "timestamp_ms", "to_int"):
        TARGETS[f"{scheme.name}.{method}"] = (getattr(scheme, method), 1)


#: Address space a target may add while it runs. A fuzzed count (``batch(2**40)``) once made
#: the kernel kill the whole test run; under this cap it is a MemoryError, reported below.
HEADROOM = 512 << 20


@contextmanager
def memory_cap(extra: int = HEADROOM) -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        in_use = int(statm.read().split()[0]) * resource.getpagesize()
    cap = in_use + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.mark.parametrize("name", sorted(TARGETS))
@given(data=st.data())
def test_only_documented_exceptions_escape(name: str, data: st.DataObject) -> None:
    target, arity = TARGETS[name]
    args = [data.draw(values, label=f"arg{n}") for n in range(arity)]
    try:
        with memory_cap():
            target(*args)
    except UlidkeysError:
        pass
    except Exception as error:  # what this test exists to find (MemoryError included)
        raise AssertionError(f"{name}{describe(tuple(args), 300)} raised {error!r}") from error


def test_the_memory_cap_turns_a_runaway_allocation_into_an_error() -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    with pytest.raises(MemoryError), memory_cap(extra=64 << 20):
        bytearray(256 << 20)  # refused by mmap before a page is touched: fast, no real memory
    assert resource.getrlimit(resource.RLIMIT_AS) == before  # the cap is lifted afterwards


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("Entity.gsi", ["GSI1"]),
        ("Entity.parse", [["PK", "SK"]]),
        ("key_before", [b"abc", 5]),
        ("Monotonic.clock", [Decimal("NaN")]),
        ("Monotonic.clock", [1.5]),
        ("uuid7.min_for", [Decimal("NaN")]),
        ("TimeWindow.bounds", [None]),
        ("ids.bounds", [ids.UUID7, TimeWindow(0, 1), 5]),
        ("twitter-snowflake.parse", ["9" * 5000]),
        ("Entity", ["O#{bucket}", "P#{id}", "#", ["day"]]),
        ("Entity.parse", [None]),
        ("Monotonic.clock", [datetime.now(timezone.utc)]),
        ("Monotonic.clock", [timedelta(1)]),
    ],
)
def test_the_issues_escapes_are_documented_errors(name: str, args: list[Any]) -> None:
    target, _ = TARGETS[name]
    with pytest.raises(UlidkeysError):
        target(*args)
