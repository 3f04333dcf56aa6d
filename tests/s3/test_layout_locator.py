"""``KeyLayout.locator()`` - the compiled key test every listed key passes - gives exactly
:meth:`KeyLayout.split`'s verdict, over every registered sortable scheme, shards, period folders,
suffixes, newest-first layouts and hostile keys (wrong shard, wrong folder, other suffixes,
truncated and extended keys, junk), in any order (its period-folder memo must not leak)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE

from ulidkeys.ids.protocol import IdScheme
from ulidkeys.planning.layout import KeyLayout

DAY = 86_400_000


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


@settings(max_examples=60)
@given(
    scheme=st.sampled_from(SORTABLE),
    prefix=st.sampled_from(["", "up/", "a/b/"]),
    shards=st.sampled_from([None, 2, 4, 16]),
    period=st.sampled_from([None, "day", "hour"]),
    suffix=st.sampled_from(["", ".jpg"]),
    newest_first=st.booleans(),
    seed=st.integers(0, 2**32),
)
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
