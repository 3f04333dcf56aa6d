"""What an S3 prefix holds, read in at most a budget of ListObjectsV2 calls and never more than
reading it whole takes: pages from the first key on, then - for a prefix not read whole - the
folders under it. Every count exact, a range from the shards read whole at its stated
confidence, or unknown above the keys read. I/O-free (run by a shell of ``ulidkeys.engine``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ulidkeys.engine.chains import Page, Stats
from ulidkeys.engine.operations import Operation, fetch_one
from ulidkeys.errors import require_count
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.periods import folder_forms
from ulidkeys.survey.common import (
    BINS,
    DEFAULT_MAX_CALLS,
    MIN_CALLS,
    Findings,
    exact_counts,
    first_pages,
    none_fit,
    read_note,
    times_dict,
    updated,
)
from ulidkeys.survey.counts import (
    WINDOWS,
    Count,
    WindowCost,
    bin_starts,
    binned,
    scaled_count,
    window_cost,
)
from ulidkeys.survey.hints import deeper_note
from ulidkeys.survey.shapes import Shape, fitting_keys, read_shape, unplaced
from ulidkeys.survey.suggestions import layout_name, python_of, toml_of

#: Share of the keys read that must fit the layout before its shards are taken to count the
#: prefix (keys of another writer in the same folders need not spread by the layout's rule).
MIN_FITTING_SHARE = 0.9


@dataclass(frozen=True)
class Survey(Findings):
    """What :func:`survey_program` found under ``location`` in ``calls`` calls.

    ``shape`` is None when nothing is stored there; ``layout`` None when no key holds an id of a
    known scheme at a place a layout puts it, or when the keys sit in shard folders the survey
    did not all see (a layout with the ones seen would miss the others). ``keys`` counts the
    keys that fit the layout - with no layout, the keys that end in an id of any scheme: exact
    when the prefix was read whole (then :attr:`exact`), a range at its stated confidence when
    whole shards were read, else unknown above the keys read. ``oldest_ms``/``newest_ms`` are
    the id times of the oldest and newest keys when ``oldest_exact``/``newest_exact``, else the
    oldest (newest) read: the truth is that or earlier (later). ``per_day``, the histogram
    ``(bin start ms, keys)`` and ``costs`` (a 1-hour and a 1-day window with the layout and by a
    full listing, counted on the keys) are given when the keys bound them; ``notes`` say how.
    ``python`` and ``config`` suggest the layout only for a prefix read whole that it fits.
    """

    shape: Shape | None = None
    layout: KeyLayout | None = None
    costs: tuple[tuple[str, WindowCost], ...] = ()
    python: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The survey as JSON-safe data (what ``ulidkeys survey -o json`` prints)."""
        shape = self.shape
        return {
            "location": self.location,
            "calls": self.calls,
            "max_calls": self.max_calls,
            "exact": self.exact,
            "layout": None
            if shape is None
            else {
                # a shard count not seen is not given: the fewest there are is
                "shards": shape.shards if shape.shards_known else None,
                "shards_at_least": shape.shards,
                "period": shape.period,
                "other_period_folders": shape.other_period,
                "scheme": shape.scheme,
                "newest_first": shape.newest_first,
                "also_fits": list(shape.alternatives),
                "suffixes": shape.suffixes,
                # placed False: no layout; fitting counts the keys that end in an id and
                # not_fitting those that hold none
                "placed": shape.placed,
                "fitting": shape.fitting,
                "not_fitting": shape.junk,
                "not_fitting_examples": list(shape.examples),
            },
            **times_dict(self, "keys"),
            "costs": [
                {
                    "window": name,
                    "calls": round(cost.calls, 2),
                    "keys_read": round(cost.keys, 2),
                    "full_listing_calls": round(cost.full_calls),
                    "full_listing_keys": round(cost.full_keys),
                }
                for name, cost in self.costs
            ],
            "python": self.python,
            "config": self.config,
            "notes": list(self.notes),
        }


def _keys(page: Page) -> list[str]:
    return [key for key, obj in page.entries if "Key" in obj]


def survey_program(
    bucket: str, prefix: str, stats: Stats, *, max_calls: int = DEFAULT_MAX_CALLS
) -> Generator[Operation, Any, Survey]:
    """The survey of ``s3://bucket/prefix`` in at most ``max_calls`` ListObjectsV2 calls, and
    never more than reading the prefix whole takes: pages from the first key on (every call
    but one), then - for a prefix not read whole - the folders under it (one call)."""
    require_count(max_calls, "max_calls", MIN_CALLS)
    location = f"s3://{bucket}/{prefix}"
    call = ListCall(prefix, ordered=False)
    keys, token, found = yield from first_pages(Survey, location, call, max_calls, stats, _keys)
    whole = token is None
    if not keys:
        note = (
            "nothing is stored under this prefix" if whole else read_note(stats, whole, 0, "keys")
        )
        return updated(found, stats, notes=(note,))
    # the folders under the prefix, None while their count is not known (not listed, or more
    # than a page): shards inferred from the keys read alone may be fewer than there are
    folders: list[str] | None = None
    if not whole and stats.calls < max_calls:
        if _first_folder(prefix, keys[0]) != _first_folder(prefix, keys[-1]):
            # a first folder was read whole: how many folders there are may count the keys
            listed: Page = yield from fetch_one(
                ListCall(prefix, delimiter="/", ordered=False), stats=stats
            )
            folders = [key[len(prefix) :] for key, obj in listed.entries if "Prefix" in obj]
            if listed.token is not None:
                folders = None  # more folders than one page names: their count is not known
        else:  # the last call reads on: a prefix one page longer is then read whole
            page = yield from fetch_one(ListCall(prefix, ordered=False), token, stats=stats)
            keys += _keys(page)
            whole = page.token is None
            found = replace(found, keys=none_fit(whole))
    shape = read_shape(prefix, keys, folders or ())
    if shape.shards and not (whole or folders is not None):
        # the keys read reach some shard folders and the folders were not listed: how many
        # there are is not known, and a layout with the ones seen would miss the others
        shape = replace(shape, shards_known=False)
    layout = shape.layout()
    found = replace(found, shape=shape, layout=layout)
    notes = [read_note(stats, whole, len(keys), "keys")]
    if layout is None:
        return _unplaced(found, location, prefix, keys, whole, stats, notes)
    fitting = fitting_keys(layout, keys)
    if shape.unfit_ids:
        notes.append(
            f"{shape.unfit_ids:,} keys hold {layout.scheme.name} ids but do not fit this layout "
            "(another shard count or period folder): no layout is suggested, as it would miss "
            "them"
        )
    if whole:
        return _exact(found, bucket, layout, keys, [ms for _key, ms in fitting], stats, notes)
    return _partly(found, layout, keys, fitting, folders is not None, stats, notes)


def _unplaced(
    found: Survey,
    location: str,
    prefix: str,
    keys: list[str],
    whole: bool,
    stats: Stats,
    notes: list[str],
) -> Survey:
    """No layout lists the keys where they are: the keys that end in an id (of any scheme)
    are counted, with their time span, and no layout is suggested."""
    assert found.shape is not None
    shape, held = unplaced(found.shape, keys)
    if not shape.shards_known:
        notes.append(
            f"the keys sit in shard folders; those read are in the first {shape.shards} and the "
            "folders were not listed, so how many shards there are is unknown and no layout is "
            "given: survey with a larger max_calls, or list the folders under the prefix"
        )
    elif shape.other_period is not None:
        notes.append(
            f"the keys sit in period folders such as {shape.other_period!r}, a spelling no "
            f"layout writes (layouts write {folder_forms()}): survey or list one such folder "
            "as its own prefix"
        )
    else:
        notes.append(
            deeper_note(location, prefix, keys)
            or "no key holds an id of a scheme ulidkeys knows at the place a layout puts it"
        )
    changes: dict[str, Any] = {"shape": shape, "keys": none_fit(whole)}
    if held and shape.shards_known:
        notes.append(
            f"keys: the {len(held):,} keys{'' if whole else ' read'} that end in an id (mostly "
            f"{shape.scheme} ids); no layout lists them where they sit, so none is suggested"
        )
    times = [ms for ms in held if ms is not None]
    if whole:
        changes.update(exact_counts(times), keys=Count.exactly(len(held)))
    else:
        changes["keys"] = Count.unknown(len(held))
        if times:  # the oldest and newest read: the truth is that or earlier, later
            changes.update(oldest_ms=min(times), newest_ms=max(times))
        notes.append(f"how many keys: unknown; at least the {len(held):,} read")
    return updated(found, stats, notes=tuple(notes), **changes)


def _first_folder(prefix: str, key: str) -> str | None:
    """The folder right under ``prefix`` that ``key`` is in (None: none)."""
    folder, slash, _ = key[len(prefix) :].partition("/")
    return folder if slash else None


def _exact(
    found: Survey,
    bucket: str,
    layout: KeyLayout,
    keys: list[str],
    times: list[int],
    stats: Stats,
    notes: list[str],
) -> Survey:
    """A prefix read whole: every count is a count, every cost counted on the keys."""
    counted = exact_counts(times)
    if not times:
        return updated(found, stats, notes=tuple(notes), **counted)
    costs = tuple(
        (name, cost)
        for name, width in WINDOWS.items()
        if (cost := window_cost(layout, keys, times, width)) is not None
    )
    suggest = not (found.shape and found.shape.unfit_ids)
    return updated(
        found,
        stats,
        **counted,
        costs=costs,
        python=python_of(layout) if suggest else None,
        config=toml_of(layout_name(layout.prefix), bucket, layout) if suggest else None,
        notes=tuple(notes),
    )


def _partly(
    found: Survey,
    layout: KeyLayout,
    keys: list[str],
    fitting: list[tuple[str, int]],
    shards_known: bool,
    stats: Stats,
    notes: list[str],
) -> Survey:
    """A prefix read from its first key, not to its last: what the keys read bound
    (``fitting``: those that fit the layout, with their times)."""
    times = [ms for _key, ms in fitting]
    if not times:
        notes.append("no key read fits the layout yet: how many do is unknown")
        return updated(found, stats, notes=tuple(notes))
    sorted_by_time = not layout.shards  # one shard: key order is time order (or its reverse)
    first = times[0]
    oldest, newest = min(times), max(times)
    changes: dict[str, Any] = {
        "oldest_ms": oldest,
        "newest_ms": newest,
        # the first key of a flat layout is the oldest (newest-first: the newest) of all
        "oldest_exact": sorted_by_time and not layout.newest_first and first == oldest,
        "newest_exact": sorted_by_time and layout.newest_first and first == newest,
        "keys": Count.unknown(len(times)),
    }
    done = _shards_read_whole(layout, keys)
    fitting_share = len(times) / len(keys)
    if not (shards_known and done and layout.shards and fitting_share >= MIN_FITTING_SHARE):
        why = (
            "no shard was read whole"
            if layout.shards
            else "a layout without shards cannot be counted from part of it"
        )
        notes.append(f"how many keys: unknown ({why}); at least the {len(times):,} read")
        return updated(found, stats, notes=tuple(notes), **changes)
    # whole shards: each key is in them with probability done/shards, whatever its time
    fraction = len(done) / layout.shards
    at = len(layout.prefix)
    in_done = [ms for key, ms in fitting if _shard_number(key, at) in done]
    changes["keys"] = scaled_count(len(in_done), fraction, len(times))
    starts = bin_starts(oldest, newest + 1, BINS)
    everything = binned(times, oldest, newest + 1, BINS)
    sampled = binned(in_done, oldest, newest + 1, BINS)
    changes["histogram"] = tuple(
        (start, scaled_count(count, fraction, seen))
        for start, count, seen in zip(starts, sampled, everything, strict=True)
    )
    notes.append(
        f"how many keys: counted in {len(done)} of {layout.shards} shards read whole (an id's "
        "shard comes from its random bits, so they hold a random share of the keys); the "
        f"range holds the truth with probability {changes['keys'].confidence:.3%}"
    )
    return updated(found, stats, notes=tuple(notes), **changes)


def _shard_number(key: str, at: int) -> int:
    """The shard of a key that fits a sharded layout (its folder at ``at``)."""
    return int(key[at:].partition("/")[0])


def _shards_read_whole(layout: KeyLayout, keys: Sequence[str]) -> set[int]:
    """The shards whose every key was read: the ones before the shard of the last key read
    (keys come in order, shard folders sort by number)."""
    last = keys[-1]
    return {
        shard
        for shard in range(layout.shards or 0)
        if (folder := layout.prefix + layout.shard_folder(shard)) < last
        and not last.startswith(folder)
    }
