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
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidCursor
from ulidkeys.timeinput import to_ms

moto = mock_aws()
moto.start()

# %% [markdown]
# ## Posts and their comments, stored next to each other
#
# An `Entity` is pure: it makes keys, parses items and plans queries. The table's definition
# comes from it too: string `PK`/`SK` (and any GSIs). A `Table` binds an entity to a boto3
# `Table` resource (or a client) and queries and writes.

# %%
post = Entity(pk="Org#{org}", sk="Post#{id}")
comment = Entity(pk="Org#{org}", sk="Post#{post}#Comment#{id}")
dynamodb = boto3.resource("dynamodb", region_name="us-east-1")
table = dynamodb.create_table(**post.table_definition("app"))
posts_table, comments_table = Table(table, post), Table(table, comment)
print(post.keys(org="acme"))

start = to_ms("2024-05-13T00:00:00Z")
rng = random.Random(3)
post_ids = sorted(ULID.new(at=start + rng.randrange(3 * 86_400_000)) for _ in range(1_000))
with posts_table.batch_writer() as posts, comments_table.batch_writer() as comments:
    for n, u in enumerate(post_ids):
        # ts: only for the FilterExpression comparison below; the key already holds the time
        posts.put({**post.keys(org="acme", id=u), "title": f"post {n}", "ts": u.timestamp_ms})
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
print(posts_table.plan_window(since, until, org="acme").explain())
found = posts_table.query_window(since, until, org="acme")
posts = list(found)
window = TimeWindow(since, until)
assert [p["SK"] for p in posts] == [f"Post#{u}" for u in post_ids if u.timestamp_ms in window]
print(found.stats)  # read = ScannedCount: the posts and their comments; the comments are skipped
print(f"{len(posts)} posts; {found.stats.read_per_item:.2f} items read per post")

# %% [markdown]
# ## Newest first, with a limit, and resuming
#
# `cursor` is an opaque, JSON-safe string that resumes just past the last item yielded
# (`after=` an item works too). A cursor is refused with `InvalidCursor` by a query over
# another window, entity or direction.

# %%
first = posts_table.query_window(since, until, org="acme", newest_first=True, limit=3)
titles = [p["title"] for p in first]
more = posts_table.query_window(newest_first=True, limit=3, cursor=first.cursor, org="acme")
more_titles = [p["title"] for p in more]
print(titles, "then", more_titles)
newest = [p["title"] for p in posts_table.latest(6, since=since, until=until, org="acme")]
assert titles + more_titles == newest  # nothing lost or repeated

# %%
try:
    posts_table.query_window(since, until, org="acme", cursor=first.cursor)  # oldest first
except InvalidCursor as error:
    print("refused:", error)

# %% [markdown]
# ## Items read per item returned, by window size
#
# The usual alternative keeps the time in an attribute (`ts`) and queries the whole partition
# with a `FilterExpression`: DynamoDB reads, and bills, every item of the partition and then
# drops most of them. `query_window` reads the window's posts and the comments stored between
# them, nothing else.

# %%
import matplotlib.pyplot as plt

from ulidkeys.cli.baselines import filter_expression

client = boto3.client("dynamodb", region_name="us-east-1")
sizes = {"10 min": 600_000, "1 h": 3_600_000, "6 h": 21_600_000, "1 day": 86_400_000}
begin = to_ms("2024-05-14T09:00:00Z") + 123
ratios = {"query_window": [], "ts + FilterExpression": []}
for name, span in sizes.items():
    w = TimeWindow.from_ms(begin, begin + span)
    ours = posts_table.query_window(w.start_ms, w.end_ms, org="acme")
    got = [p["SK"] for p in ours]
    theirs = filter_expression(client, "app", ("PK", "Org#acme"), "ts", w.start_ms, w.end_ms)
    assert theirs.keys == got
    ratios["query_window"].append(ours.stats.read / max(len(got), 1))
    ratios["ts + FilterExpression"].append(theirs.read / max(len(got), 1))
    print(f"{name:>6}: {len(got):4} posts; read {ours.stats.read:5,} vs {theirs.read:5,}")

fig, ax = plt.subplots(figsize=(7, 3.6))
for n, (method, values) in enumerate(ratios.items()):
    bars = ax.bar([x + (n - 0.5) * 0.4 for x in range(len(sizes))], values, 0.4, label=method)
    ax.bar_label(bars, labels=[f"{v:.1f}" for v in values], fontsize=8)
ax.set_xticks(range(len(sizes)), list(sizes))
ax.set_yscale("log")
ax.set_ylabel("items read per item returned")
ax.set_title("DynamoDB: what a window query reads")
ax.legend(fontsize=8)
plt.show()

# %%
moto.stop()
