# %% [markdown]
# # DynamoDB: `PK = Org#acme`, `SK = Post#<ULID>`, and exact time-window queries
#
# Runs against an in-process moto DynamoDB. The entity is declared once; keys, parsing and
# queries are derived from it.

# %%
import os

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

import random

import boto3
from moto import mock_aws

from ulidkeys import ULID, TimeWindow
from ulidkeys.dynamodb import Entity, QueryStats
from ulidkeys.timeinput import to_ms

moto = mock_aws()
moto.start()

# %% [markdown]
# ## Posts and their comments, stored next to each other
#
# The table's definition comes from the entity too: string `PK`/`SK` (and any GSIs).

# %%
post = Entity(pk="Org#{org}", sk="Post#{id}")
comment = Entity(pk="Org#{org}", sk="Post#{post}#Comment#{id}")
dynamodb = boto3.resource("dynamodb", region_name="us-east-1")
table = dynamodb.create_table(**post.table_definition("app"))
print(post.keys(org="acme"))

start = to_ms("2024-05-13T00:00:00Z")
rng = random.Random(3)
post_ids = sorted(ULID.new(at=start + rng.randrange(3 * 86_400_000)) for _ in range(2_000))
with post.batch_writer(table) as posts, comment.batch_writer(table) as comments:
    for n, u in enumerate(post_ids):
        posts.put({**post.keys(org="acme", id=u), "title": f"post {n}"})
        if n % 10 == 0:  # every tenth post has a comment
            comments.put({**comment.keys(org="acme", post=u), "text": "first!"})

# %% [markdown]
# ## The posts of one hour
#
# The key condition is `BETWEEN lo AND key_before(hi)`: exact for the half-open window even
# though comments continue after the post's ULID. DynamoDB reads the posts of the window and
# their comments, nothing else; the comments are skipped.

# %%
since, until = "2024-05-14T09:00:00Z", "2024-05-14T10:00:00Z"
print(post.plan(since, until, org="acme"))
stats = QueryStats()
posts = list(post.query_window(table, since, until, org="acme", stats=stats))
window = TimeWindow(since, until)
assert [p["SK"] for p in posts] == [f"Post#{u}" for u in post_ids if u.timestamp_ms in window]
print(f"{len(posts)} posts; ScannedCount {stats.scanned} == Count {stats.count}")

# %% [markdown]
# ## Newest first, with a limit, and resuming

# %%
first = list(post.query_window(table, since, until, org="acme", newest_first=True, limit=3))
more = list(
    post.query_window(
        table, since, until, org="acme", newest_first=True, limit=3, after=first[-1]
    )
)
print([p["title"] for p in first], "then", [p["title"] for p in more])
assert not {p["SK"] for p in first} & {p["SK"] for p in more}

# %%
moto.stop()
