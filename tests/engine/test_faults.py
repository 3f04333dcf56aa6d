"""Listings and queries through moto's HTTP server while a seeded quarter of requests fail:
every raise is resumed from ``.cursor``, and the joined answer must equal brute force exactly
(harness: ``faultsupport``; ``benchmarks/faults.py`` runs it longer)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from faultsupport import (
    BASE,
    DAY,
    HOUR,
    RETRY_MODES,
    SERVICES,
    Case,
    Tally,
    World,
    allowed_raises,
    consume,
    dynamodb_window,
    faults_of,
    moto_world,
    run_windows,
    s3_latest,
    s3_window,
)

from ulidkeys.errors import ServiceError, UnexpectedResponse

#: The fault world (injected failures, resumed listings): left out of `make test`, run by
#: `make test-all` and CI.
pytestmark = pytest.mark.slow

SEED = 6  # chosen so that every run with retries reduced or off resumes (checked below)
RATE = 0.25
WINDOWS = 5  # per service and retry mode: 30 seeded windows in all


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with moto_world(SEED) as world:
        yield world


@pytest.fixture(scope="module")
def tallies(world: World) -> dict[tuple[str, str], Tally]:
    """Each service and retry mode's run, made once (the tests below read them)."""
    return {
        (service, mode): run_windows(world, service, mode, WINDOWS, SEED, RATE)
        for service in SERVICES
        for mode in RETRY_MODES
    }


@pytest.mark.parametrize("mode", RETRY_MODES)
@pytest.mark.parametrize("service", SERVICES)
def test_every_window_is_exact_after_resuming(
    tallies: dict[tuple[str, str], Tally], service: str, mode: str
) -> None:
    tally = tallies[service, mode]
    assert tally.problems == []  # none lost, duplicated, out of order, outside or given up
    assert tally.silent == 0, "a listing ended early without raising"
    assert tally.windows == WINDOWS
    assert sum(tally.injected.values()) >= 3, "the run met too few faults to prove anything"
    assert set(tally.raises) <= allowed_raises(service), "a raise no injected fault explains"
    assert tally.resumes == sum(tally.raises.values())  # every raise was resumed
    if RETRY_MODES[mode] <= 2:
        assert tally.resumes >= 1, "no listing raised: resuming was not exercised"


@pytest.mark.parametrize("service", SERVICES)
def test_retries_hide_every_fault_but_the_empty_200(
    tallies: dict[tuple[str, str], Tally], service: str
) -> None:
    on, off = tallies[service, "on"], tallies[service, "off"]
    assert set(on.raises) <= {"UnexpectedResponse"}  # botocore cannot know a 200 is wrong
    assert sum(off.raises.values()) > sum(on.raises.values())
    assert len(set(off.raises) - {"UnexpectedResponse"}) >= 2  # errors and drops surface
    seen = sum(tallies[service, mode].raises["UnexpectedResponse"] for mode in RETRY_MODES)
    assert seen >= 1, "no empty 200 was consumed: the loud failure was not exercised"


#: Windows of several pages, and the share of their requests answered with an empty 200 (lower
#: for latest(), which sends a dozen requests per listing before its first key).
FOCUSED: dict[str, tuple[Callable[[World], Case], float]] = {
    "s3-flat": (lambda world: s3_window(world, "flat", BASE, BASE + DAY, page=50), 0.3),
    "s3-sharded": (lambda world: s3_window(world, "sharded", BASE, BASE + DAY, page=20), 0.3),
    "s3-latest": (lambda world: s3_latest(world, "sharded", BASE, BASE + 2 * DAY, 150), 0.1),
    "dynamodb-post": (
        lambda world: dynamodb_window(world, "POST", BASE, BASE + 12 * HOUR, page=10),
        0.3,
    ),
    "dynamodb-hot-newest": (
        lambda world: dynamodb_window(world, "HOT", BASE, BASE + DAY, newest=True, page=20),
        0.3,
    ),
}


@pytest.mark.parametrize("name", FOCUSED)
def test_an_empty_200_raises_instead_of_ending_the_listing(world: World, name: str) -> None:
    """Only empty 200s, with botocore's full retries (which take a 200 as a success): each
    one the listing reads must raise UnexpectedResponse, a ServiceError; ending the listing
    there would silently drop the rest of the window."""
    make_case, rate = FOCUSED[name]
    case = make_case(world)
    assert len(case.expected) >= 100  # several pages, so the fault can strike mid-window
    tally = Tally()
    only = faults_of(case.service, "empty-200")
    consume(world, case, RETRY_MODES["on"], f"empty {name}", rate, tally, faults=only)
    assert tally.problems == [] and tally.wrong == 0 and tally.gave_up == 0
    assert set(tally.raises) == {"UnexpectedResponse"}
    assert 1 <= tally.raises["UnexpectedResponse"] <= tally.injected["empty-200"]
    assert issubclass(UnexpectedResponse, ServiceError)
