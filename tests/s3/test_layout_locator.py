"""``KeyLayout.locator()`` - the compiled key test every listed key passes - gives exactly
:meth:`KeyLayout.split`'s verdict, over every registered sortable scheme, shards, period folders,
suffixes, newest-first layouts and hostile keys (wrong shard, wrong folder, other suffixes,
truncated and extended keys, junk), in any order (its period-folder memo must not leak)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE
from periodsupport import layout_periods_or_none
from profiles import examples

from ulidkeys.ids.protocol import IdScheme
from ulidkeys.planning.layout import KeyLayout

DAY = 86_400_000
#: Layouts over every sortable scheme, and a seed for the keys (both tests draw the same).
LAYOUTS = {
    "scheme": st.sampled_from(SORTABLE),
    "prefix": st.sampled_from(["", "up/", "a/b/"]),
    "shards": st.sampled_from([None, 2, 4, 16]),
    "period": layout_periods_or_none,
    "suffix": st.sampled_from(["", ".jpg"]),
    "newest_first": st.booleans(),
    "seed": st.integers(0, 2**32),
}


def verdict(layout: KeyLayout, key: str) -> tuple[str, int, str] | None:
    id_text, _suffix, ms, reason = layout.split(key)
    return None if reason is not None else (id_text, ms, key)


def mutations(key: str, rng: random.Random) -> list[str]:
    """The key and near misses of it: each character changed, cut, extended, re-cased."""
    out = [key, key[:-1], key + "x", key.upper(), key.lower(), "x" + key, key.replace("/", "//")]
    for _ in range(6):
        i = rng.randrange(len(key))
        out.append(key[:i] + rng.choice("0129AZaz/._-=") + key[i + 1 :])
    return out


@settings(max_examples=examples(60))
@given(**LAYOUTS)
def test_the_locator_gives_splits_verdict(
    scheme: IdScheme,
    prefix: str,
    shards: int | None,
    period: str | None,
    suffix: str,
    newest_first: bool,
    seed: int,
) -> None:
    if newest_first:
        period = None  # newest-first layouts have no period folders
    layout = KeyLayout(prefix, shards, period, suffix, scheme, newest_first)  # type: ignore[arg-type]
    other = KeyLayout(prefix, 3 if shards is None else None, None, suffix, scheme)
    rng = random.Random(seed)
    low, high = max(scheme.min_ms, 0), min(scheme.max_ms, 4_102_444_800_000)  # up to 2100
    keys = []
    for _ in range(12):
        ms = (
            rng.randrange(low, high)
            if rng.random() < 0.5
            else 1_715_936_400_000 + rng.randrange(3 * DAY)
        )
        ms -= ms % scheme.resolution_ms
        ms = min(max(ms, low), high)
        text = rng.choice([scheme.min_for(ms), scheme.max_for(ms)])
        keys += [layout.key_for(text, ext) for ext in (None, ".png", ".tar.gz", ".x" * 10)]
        keys.append(other.key_for(text))
    keys = [variant for key in keys for variant in mutations(key, rng)]
    rng.shuffle(keys)  # any order: the period-folder memo must hold for every key
    locate = layout.locator()
    fitting = 0
    for key in keys:
        expected = verdict(layout, key)
        assert locate(key) == expected, key
        fitting += expected is not None
    assert fitting >= 12  # the unmutated keys of the layout fit


@settings(max_examples=examples(60))
@given(**LAYOUTS)
def test_the_run_locator_reads_a_page_as_the_locator_reads_each_key(
    scheme: IdScheme,
    prefix: str,
    shards: int | None,
    period: str | None,
    suffix: str,
    newest_first: bool,
    seed: int,
) -> None:
    """``run_locator()`` (a page of keys at once) gives every key's ``locator()`` verdict, as
    columns, when all of them fit, and None as soon as one does not: over runs of fitting
    keys (sorted, as S3 lists them, within one period folder or across two), runs with one
    hostile key among them, and any order."""
    if newest_first:
        period = None
    layout = KeyLayout(prefix, shards, period, suffix, scheme, newest_first)  # type: ignore[arg-type]
    run_locate = layout.run_locator()
    if newest_first or not hasattr(scheme, "all_canonical"):
        assert run_locate is None  # read key by key
        return
    assert run_locate is not None
    locate = layout.locator()
    rng = random.Random(seed)
    other = KeyLayout(prefix, 3 if shards is None else None, None, suffix, scheme)
    start = 1_715_936_400_000 + rng.randrange(3 * DAY)
    span = rng.choice([1000, 3_600_000, 2 * DAY])  # inside one folder, or across folders
    fitting = sorted(
        {
            layout.key_for(scheme.min_for(start + rng.randrange(span)), rng.choice([None, ".png"]))
            for _ in range(rng.randrange(1, 40))
        }
    )
    if shards:  # one chain lists one shard's folder
        fitting = [
            key for key in fitting if key[: len(prefix) + 3] == fitting[0][: len(prefix) + 3]
        ]
    hostile = [variant for key in fitting[:3] for variant in mutations(key, rng)]
    hostile += [other.key_for(scheme.min_for(start))]
    # the id in another shard's folder, or under another period's folder: fit in all but that
    at = len(prefix)
    for key in fitting[:2]:
        if shards:
            shard = int(key[at : key.index("/", at)])
            width = len(layout.shard_folder(0))
            hostile.insert(
                0, key[:at] + layout.shard_folder((shard + 1) % shards) + key[at + width :]
            )
    elsewhere = layout.period_folder(start + 40 * DAY) if period is not None else ""

    def moved(key: str) -> str:
        found = locate(key)
        assert found is not None
        return key.replace(layout.period_folder(found[1]), elsewhere, 1)

    if period is not None:
        hostile[:0] = [moved(key) for key in fitting[:2]]
    runs = [fitting, fitting[:1]]
    if period is not None:
        runs.append(sorted(moved(key) for key in fitting))  # all in one folder, not theirs
    if shards:  # all in the next shard's folder, not theirs
        width = len(layout.shard_folder(0))
        shard = int(fitting[0][len(prefix) : len(prefix) + width - 1])
        there = layout.shard_folder((shard + 1) % shards)
        runs.append(
            sorted(key[: len(prefix)] + there + key[len(prefix) + width :] for key in fitting)
        )
    # an id past the largest (its first character above 7), last in the page
    last = locate(fitting[-1])
    assert last is not None
    at = fitting[-1].index(last[0])
    runs.append([*fitting, fitting[-1][:at] + "8" + fitting[-1][at + 1 :]])
    for bad in hostile[:12]:
        runs.append(sorted({*fitting, bad}))  # a page is strictly ascending
    for run in runs:
        verdicts = [locate(key) for key in run]
        got = run_locate(run)
        if None in verdicts:
            assert got is None, run
            continue
        ids = [v[0] for v in verdicts if v]
        heads = {key[: key.index(id_text)] for key, id_text in zip(run, ids, strict=True)}
        if len(heads) > 1:  # keys in two shard or period folders: read key by key
            assert got is None
            continue
        times = [v[1] for v in verdicts if v]
        assert got == (ids, times[0], times[-1]), run
        assert ids == sorted(ids)
