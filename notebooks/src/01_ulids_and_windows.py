# %% [markdown]
# # ULIDs and time windows
#
# A ULID is 48 bits of Unix time in milliseconds plus 80 random bits, written as 26 characters
# of Crockford base32. The first 10 characters are the time, and the alphabet is in ASCII
# order, so **sorting the strings sorts by time**. That is what makes them good S3 object
# names and DynamoDB sort keys.

# %%
import ulidkeys
from ulidkeys import ULID, TimeWindow

text = ulidkeys.new()
u = ULID.parse(text)
print(text, "->", u.datetime, "| time part:", text[:10], "| random part:", text[10:])

# %% [markdown]
# Ids made later sort later, whatever their random parts:

# %%
earlier = ULID.new(at="2024-05-17T09:00:00Z")
later = ULID.new(at="2024-05-17T09:00:00.001Z")
assert str(earlier) < str(later)
print(earlier, "<", later)

# %% [markdown]
# ## Batches and monotonic runs
#
# `batch(n)` gives every id its own 80 random bits (upload names must not be guessable from
# one another); `batch(n, monotonic=True)` gives a strictly increasing run instead.

# %%
for name in ulidkeys.batch(3):
    print("independent", name)
for name in ulidkeys.batch(3, monotonic=True):
    print("monotonic  ", name)

# %% [markdown]
# ## From a time window to key bounds
#
# A window is half-open, `since <= t < until`, in whole milliseconds. Its bounds are plain
# strings: `lo <= key < hi` holds exactly for the keys whose ULID time is in the window,
# whatever comes after the ULID (`.jpg`, `#Comment#...`).

# %%
window = TimeWindow("2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z")
lo, hi = window.bounds("uploads/")
print(window)
print(lo, "<= key <", hi)
inside = f"uploads/{ULID.new(at='2024-05-17T09:59:59.999Z')}.jpg"
outside = f"uploads/{ULID.min_for('2024-05-17T10:00:00Z')}.jpg"
assert lo <= inside < hi and not (lo <= outside < hi)
