# %% [markdown]
# # S3: name uploads with ULIDs, list any time window exactly
#
# This notebook runs against an in-process moto S3 (no AWS account needed). To run it against
# AWS, skip the `mock_aws` cell and use your own bucket.

# %%
import os

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

import random
from itertools import islice

import boto3
from moto import mock_aws

from ulidkeys import ULID, TimeWindow
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.timeinput import to_ms

moto = mock_aws()
moto.start()
s3 = boto3.client("s3", region_name="us-east-1")
s3.create_bucket(Bucket="photos")


def fill_bucket(bucket, keys):
    """Empty objects written straight into moto's in-process backend (moto only)."""
    from moto.s3.models import s3_backends

    backend = s3_backends["123456789012"]["global"]
    for key in keys:
        backend.put_object(bucket, key, b"", disable_notification=True)

# %% [markdown]
# ## A key layout, bound to a bucket
#
# `prefix` + shard folder (from the ULID's random bits) + day folder + ULID + suffix. The
# layout is pure: the key can be rebuilt from the id alone, and parsed back. A `Bucket` binds
# it to a client and a bucket name, and writes and lists.

# %%
layout = KeyLayout("uploads/", shards=4, period="day", suffix=".jpg")
photos = Bucket(s3, "photos", layout)
key = photos.put_new(b"<jpeg bytes>", ContentType="image/jpeg")  # IfNoneMatch="*"
print(key)
print(layout.parse(key))

# %% [markdown]
# Fill the bucket with 20,000 uploads over 20 days (written straight into moto's backend,
# which is much faster than 20,000 `put_object` calls): big enough that a full listing costs
# what it costs in real buckets, one call per 1,000 keys.

# %%
start = to_ms("2024-05-13T00:00:00Z")
rng = random.Random(7)
ids = [ULID.new(at=start + rng.randrange(20 * 86_400_000)) for _ in range(20_000)]
fill_bucket("photos", (layout.key_for(u) for u in ids))

# %% [markdown]
# ## The plan for one hour, then the listing
#
# One call chain per shard: `StartAfter` just below 09:00, a `Prefix` as long as the window
# allows, and a stop at the first key at or after 10:00.

# %%
since, until = "2024-05-15T09:00:00Z", "2024-05-15T10:00:00Z"
print(photos.plan_window(since, until).explain())

# %%
listing = photos.list_window(since, until)
keys = [obj["Key"] for obj in listing]
window = TimeWindow(since, until)
expected = [layout.key_for(u) for u in sorted(ids) if u.timestamp_ms in window]
assert keys == expected  # exactly the window, in time order across the shards
print(len(keys), "objects;", listing.stats)  # calls, keys read, returned, skipped

# %% [markdown]
# ## Resuming from a cursor
#
# `listing.cursor` is an opaque, JSON-safe string: store it, and `list_window(cursor=...)`
# continues just past the last object yielded, nothing lost or repeated.

# %%
first = photos.list_window(since, until)
head = [obj["Key"] for obj in islice(first, 50)]
first.close()  # stop early: no further pages are requested
rest = [obj["Key"] for obj in photos.list_window(cursor=first.cursor)]
assert head + rest == keys
print(len(head), "+", len(rest), "objects; cursor", first.cursor[:24] + "...")

# %% [markdown]
# ## Why not `Prefix` + a ULID character as `Delimiter`?
#
# Every key with that character later in its name is folded into `CommonPrefixes` and
# silently missing from `Contents`:

# %%
lo, hi = window.bounds()
naive = s3.list_objects_v2(
    Bucket="photos", Prefix=f"uploads/00/dt=2024-05-15/{window.common_prefix()}", Delimiter="Z"
)
shard0 = [k for k in keys if k.startswith("uploads/00/")]
found = [o["Key"] for o in naive.get("Contents", []) if lo <= o["Key"].rsplit("/", 1)[1] < hi]
print(f"shard 00: {len(shard0)} keys in the window, the Delimiter trick found {len(found)}")

# %% [markdown]
# ## Calls and keys transferred, by window size
#
# Three ways to get a window: `list_window`; a full listing of the prefix filtered on the
# client; and the Prefix + Delimiter trick on the same calls (`ulidkeys.cli.baselines` has the
# last two, counting what they cost). The full listing costs the same for every window: 20
# calls for these 20,000 keys, one per 1,000 keys (100 for 100,000: `benchmarks/s3_window.py`). `list_window` makes one chain per shard here and reads the
# window plus at most a page's overshoot per chain; the trick reads less because it loses keys.

# %%
import matplotlib.pyplot as plt

from ulidkeys.cli.baselines import full_listing, prefix_delimiter

sizes = {"1 min": 60_000, "10 min": 600_000, "1 h": 3_600_000, "6 h": 21_600_000, "1 day": 86_400_000}
begin = to_ms("2024-05-14T09:00:00Z") + 123  # aligned to nothing
everything = full_listing(s3, "photos", layout.prefix)
costs = {"list_window": [], "full listing": [], "Prefix+Delimiter": []}
print(f"{'window':>7} {'in window':>9} {'Delimiter missed':>16}")
for name, span in sizes.items():
    w = TimeWindow.from_ms(begin, begin + span)
    exact = sorted(k for k in everything.keys if layout.parse(k).ms in w)
    ours = photos.list_window(w.start_ms, w.end_ms)
    assert sorted(obj["Key"] for obj in ours) == exact
    trick = prefix_delimiter(s3, "photos", layout.plan_window(w.start_ms, w.end_ms).calls)
    found = [k for k in trick.keys if layout.parse(k).ms in w]
    print(f"{name:>7} {len(exact):>9} {len(exact) - len(found):>16}")
    costs["list_window"].append((ours.stats.calls, ours.stats.read))
    costs["full listing"].append((everything.calls, everything.read))
    costs["Prefix+Delimiter"].append((trick.calls, trick.read))

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for ax, column, what in ((axes[0], 0, "ListObjectsV2 calls"), (axes[1], 1, "keys transferred")):
    for method, style in zip(costs, ("o-", "s--", "^:")):
        ax.plot(list(sizes), [c[column] for c in costs[method]], style, label=method)
    ax.set_xlabel("window")
    ax.set_title(what)
    ax.legend(fontsize=8)
axes[0].set_ylim(0, 24)  # the full listing's 20 calls are on the chart
axes[1].set_yscale("symlog", linthresh=1)  # symlog: windows with 0 keys show
axes[1].set_ylim(0, 40_000)
plt.show()

# %% [markdown]
# ## The newest uploads

# %%
newest = photos.latest(5, until="2024-05-18T00:00:00Z")
for obj in newest:
    print(obj["Key"])
print(newest.stats)

# %%
moto.stop()
