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
# Fill the bucket with 20,000 uploads over 5 days (written straight into moto's backend,
# which is much faster than 20,000 `put_object` calls).

# %%
start = to_ms("2024-05-13T00:00:00Z")
rng = random.Random(7)
ids = [ULID.new(at=start + rng.randrange(5 * 86_400_000)) for _ in range(20_000)]
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
# ## The newest uploads

# %%
newest = photos.latest(5, until="2024-05-18T00:00:00Z")
for obj in newest:
    print(obj["Key"])
print(newest.stats)

# %%
moto.stop()
