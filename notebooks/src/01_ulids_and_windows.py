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

# %% [markdown]
# ## What each time character spans
#
# Each of the 10 time characters is a base-32 digit of the millisecond count. Fixing the first
# n characters fixes a block of time: the 5th character steps every ~9.3 hours, the 6th every
# ~17.5 minutes, the 10th every millisecond. That is why a `Prefix` can only cut a window
# roughly, and why exact windows also need `StartAfter` and a stop bound.

# %%
import matplotlib.pyplot as plt

from ulidkeys import resolution_table

rows = resolution_table()
fig, ax = plt.subplots(figsize=(8, 3.5))
bars = ax.bar([str(r.position) for r in rows], [r.step_ms for r in rows], color="#1f6f8b")
ax.bar_label(bars, labels=[r.human for r in rows], fontsize=7, padding=2)
ax.set_yscale("log")
ax.set_ylim(0.5, 1e16)
ax.set_xlabel("time character (1 = first)")
ax.set_ylabel("one step spans (ms, log scale)")
ax.set_title("The span of each ULID time character")
plt.show()

# %% [markdown]
# ## Prefix covers: exact, or at most k prefixes
#
# `prefix_cover()` gives the fewest prefixes that select exactly the window;
# `prefix_cover(max_prefixes=k)` at most k of them, listing some time outside the window
# (`extra_ms`, `ratio`), which the caller filters out by key.

# %%
exact = window.prefix_cover()
print(len(exact), "prefixes select exactly", window)
for k in (1, 4, 16, 32):
    cover = window.prefix_cover(max_prefixes=k)
    print(f"k={k:>2}: {len(cover):>2} prefixes, {cover.extra_ms / 60_000:8.2f} min extra")
