"""Counts as honest as the calls made allow: exact, a range that holds the truth at its stated
confidence, or unknown with a sure lower bound (:class:`Count`); the range of a count read in
whole shards (:func:`scaled_count`), histograms, and what a window costs counted on the keys.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ulidkeys.errors import UlidkeysError
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import MAX_KEYS, plan_listing
from ulidkeys.planning.periods import DAY_MS, HOUR_MS

#: Standard deviations of a scaled count's range: 4.42 leaves about one chance in 100,000 that
#: the truth lies outside it.
SIGMAS = 4.42
#: The probability that a scaled count's range holds the truth (what :data:`SIGMAS` gives).
CONFIDENCE = 0.99999


@dataclass(frozen=True)
class Count:
    """How many, as honestly as the calls made allow: ``low`` is sure (the truth is never
    below it), ``high`` the top of the range - equal to ``low`` when the count is exact, None
    when nothing the survey read bounds it (unknown). A range that is not certain says so
    with ``confidence`` (the probability that it holds the truth)."""

    low: float
    high: float | None
    confidence: float = 1.0

    @classmethod
    def exactly(cls, count: float) -> Count:
        """A count known exactly."""
        return cls(count, count)

    @classmethod
    def unknown(cls, at_least: float = 0) -> Count:
        """A count the calls made cannot bound above: at least ``at_least``."""
        return cls(at_least, None)

    @property
    def exact(self) -> bool:
        """True when the count is known exactly."""
        return self.high == self.low and self.confidence == 1.0

    @property
    def known(self) -> bool:
        """False when the count is unknown (no upper bound)."""
        return self.high is not None

    @property
    def value(self) -> float | None:
        """The count when exact, the middle of a range, None when unknown."""
        return None if self.high is None else (self.low + self.high) / 2

    @property
    def state(self) -> str:
        """``"exact"``, ``"range"`` or ``"unknown"``."""
        return "exact" if self.exact else "range" if self.known else "unknown"

    def scaled(self, factor: float) -> Count:
        """This count times ``factor`` (a rate from a count, say)."""
        high = None if self.high is None else self.high * factor
        return Count(self.low * factor, high, self.confidence)

    def as_dict(self) -> dict[str, object]:
        """JSON-safe: the state, the value (None unless exact), the sure lower bound, the top
        of the range (None when unknown) and the range's confidence."""
        return {
            "state": self.state,
            "value": round(self.low) if self.exact else None,
            "low": round(self.low),
            "high": None if self.high is None else round(self.high),
            "confidence": self.confidence,
        }

    def __str__(self) -> str:
        if self.exact:
            return f"{self.low:,.0f} (exact)"
        if self.high is None:
            return f"unknown (at least {self.low:,.0f})"
        return f"{self.low:,.0f} .. {self.high:,.0f} ({self.confidence:.3%} range)"


def scaled_count(counted: int, fraction: float, at_least: int = 0) -> Count:
    """The keys of a whole prefix when ``counted`` were found in a ``fraction`` of it chosen by
    the ids' random bits (whole shards: an id's shard comes from its random bits, so each key
    lies in the shards read with probability ``fraction``, whatever the keys' times).

    The count read is binomial, ``Bin(N, fraction)``; the range is the ``N`` whose expected count
    lies within :data:`SIGMAS` deviations of ``counted`` (Wilson's score interval, inverted),
    and never below ``at_least`` (keys seen for sure)."""
    if not 0 < fraction <= 1:
        raise UlidkeysError(f"fraction {fraction} must be in (0, 1]")
    if fraction == 1:
        return Count.exactly(max(counted, at_least))
    spread = SIGMAS * math.sqrt(fraction * (1 - fraction))
    root = math.sqrt(spread * spread + 4 * fraction * counted)
    low = max(0.0, (root - spread) / (2 * fraction)) ** 2
    high = ((root + spread) / (2 * fraction)) ** 2
    return Count(max(at_least, math.floor(low)), max(at_least, math.ceil(high)), CONFIDENCE)


def bin_starts(start_ms: int, end_ms: int, bins: int = 20) -> range:
    """The starts of ``bins`` equal bins over ``[start_ms, end_ms)`` (the last may be shorter;
    none when the span is empty); every bin is ``range.step`` wide."""
    width = max(1, math.ceil((end_ms - start_ms) / bins))
    return range(start_ms, max(start_ms, end_ms), width)


def binned(times: Iterable[int], start_ms: int, end_ms: int, bins: int = 20) -> list[int]:
    """How many of ``times`` fall in each bin of :func:`bin_starts`."""
    starts = bin_starts(start_ms, end_ms, bins)
    counts = Counter((t - start_ms) // starts.step for t in times if start_ms <= t < end_ms)
    return [counts[index] for index in range(len(starts))]


def exact_histogram(
    times: Iterable[int], start_ms: int, end_ms: int, bins: int = 20
) -> list[tuple[int, Count]]:
    """The histogram of known key times (a prefix read whole)."""
    starts = bin_starts(start_ms, end_ms, bins)
    counts = binned(times, start_ms, end_ms, bins)
    return [(lo, Count.exactly(n)) for lo, n in zip(starts, counts, strict=True)]


@dataclass(frozen=True)
class WindowCost:
    """What listing a ``span_ms`` window costs: ``calls`` ListObjectsV2 calls reading ``keys``
    keys with the layout's plan, and ``full_calls``/``full_keys`` by a full listing of the
    prefix - counted on the keys themselves (the mean over a few places in the keys' span)."""

    span_ms: int
    calls: float
    keys: float
    full_calls: float
    full_keys: float


def window_cost(
    layout: KeyLayout, keys: Sequence[str], times: Sequence[int], span_ms: int
) -> WindowCost | None:
    """The cost of a ``span_ms`` window ending at four places in the keys' span (``times``:
    those of the keys that fit the layout), with the layout's plan run on ``keys`` (every key of
    the prefix, in listing order): each chain reads its pages from its start until a page holds
    a key at or past its stop (S3 takes no end key), so the last page's keys past the window
    count too. None without fitting keys."""
    if not times:
        return None
    first, last = min(times), max(times) + 1
    places = [first + span_ms + (last - first - span_ms) * k // 5 for k in range(1, 5)]
    runs = [_run_plan(layout, keys, end - span_ms, end) for end in places]
    full_calls = max(1, math.ceil(len(keys) / MAX_KEYS))
    return WindowCost(
        span_ms,
        sum(calls for calls, _ in runs) / len(runs),
        sum(read for _, read in runs) / len(runs),
        full_calls,
        len(keys),
    )


def _run_plan(
    layout: KeyLayout, keys: Sequence[str], start_ms: int, end_ms: int
) -> tuple[int, int]:
    """``(calls, keys read)`` of the window's plan on ``keys`` (sorted as S3 lists them)."""
    encoded = [key.encode() for key in keys]  # S3 orders keys by their UTF-8 bytes
    calls = read = 0
    for call in plan_listing(layout, max(0, start_ms), max(1, end_ms)).calls:
        prefix = call.prefix.encode()
        after = (call.start_after or "").encode()
        stop = None if call.stop_at is None else call.stop_at.encode()
        chain = [k for k in encoded if k.startswith(prefix) and k > after]
        done = 0
        while True:
            page = chain[done : done + call.page_size(done)]
            calls += 1
            read += len(page)
            done += len(page)
            if done >= len(chain) or (stop is not None and page and page[-1] >= stop):
                break
    return calls, read


WINDOWS = {"1 hour": HOUR_MS, "1 day": DAY_MS}
