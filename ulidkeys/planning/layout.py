"""S3 key layouts: ``prefix`` + shard folder + period folder + id + suffix, built and parsed.

Pure string work with no I/O, written once for every id scheme (ULID by default). A layout is
reversible: every part of a key is derived from its id (the shard from its random bits, the
period folder from its time), so ``parse`` tells a key that fits from one that merely looks
similar. Bound to a client (``ulidkeys.s3.Bucket``) it lists and writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter, mod, ne
from typing import Any

from ulidkeys.errors import (
    InvalidKeyPart,
    InvalidLayout,
    InvalidValue,
    KeyMismatch,
    UlidkeysError,
    describe,
    require_bool,
    require_count,
)
from ulidkeys.ids.interop import coerce_id
from ulidkeys.ids.protocol import (
    IdScheme,
    invert_id,
    inverted_time,
    key_scheme,
    key_window,
    shard_of,
)
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.planning.keytext import check_path, check_text
from ulidkeys.planning.listings import MAX_KEYS, ListCall, plan_listing
from ulidkeys.planning.periods import PARTITION_LIMIT_MS, Period, layout_period
from ulidkeys.planning.plans import KeyRun, Located, Plan, resolve_window
from ulidkeys.timeinput import TimeInput
from ulidkeys.ulid import ULID

#: The longest key S3 accepts, in UTF-8 bytes.
MAX_KEY_BYTES = 1024
#: Most shard folders a layout may have (every window is listed once per shard).
MAX_SHARDS = 1000


def require_shards(shards: object, error: type[InvalidValue], none_means: str) -> int | None:
    """A shard count as layouts and entities take it: None, or 1 .. :data:`MAX_SHARDS`; a
    count out of range raises ``error`` (a bad count is a bad layout or template), a bad type
    stays InvalidType."""
    try:
        return require_count(shards, "shards", 1, MAX_SHARDS, optional=True)
    except InvalidValue as refused:
        raise error(f"{refused}; shards=None means {none_means}") from None


_EXT_RE = re.compile(r"\.[A-Za-z0-9._+-]{1,32}")
_EXT_RULE = "a dot followed by 1-32 letters, digits, '.', '_', '+' or '-' (e.g. '.jpg')"


def check_key(key: str, name: str, error: type[UlidkeysError]) -> str:
    """Reject key shapes that are legal in S3 but odd or unsafe when treated as paths or shown
    to a person (the rule of :mod:`ulidkeys.planning.keytext`, documented in docs/s3.md)."""
    check_text(key, name, error)
    if key.startswith("/"):
        raise error(f"{name}={describe(key)} starts with '/'; S3 keys have no leading slash")
    segments = key.split("/")
    for index, segment in enumerate(segments):
        if segment in (".", ".."):
            raise error(
                f"{name}={describe(key)} has a {segment!r} path segment; tools that map keys "
                "to paths would resolve it, so it is refused"
            )
        if segment == "" and index < len(segments) - 1:
            raise error(f"{name}={describe(key)} has an empty path segment ('//')")
    check_path(key, name, error)
    if key.endswith("/"):
        raise error(f"{name}={describe(key)} ends with '/', which S3 consoles show as a folder")
    size = len(key.encode("utf-8"))
    if size > MAX_KEY_BYTES:
        raise error(
            f"{name}={describe(key)} is {size} bytes of UTF-8; S3 keys are at most "
            f"{MAX_KEY_BYTES} bytes"
        )
    return key


def normalize_ext(ext: str) -> str:
    """``'jpg'`` or ``'.jpg'`` -> ``'.jpg'``; anything else raises InvalidKeyPart."""
    check_text(ext, "ext", InvalidKeyPart)
    dotted = ext if ext.startswith(".") else "." + ext
    if not _EXT_RE.fullmatch(dotted):
        raise InvalidKeyPart(f"ext={describe(ext)} is not an extension: expected {_EXT_RULE}")
    return dotted


@dataclass(frozen=True)
class KeyParts:
    """What a key that fits a layout is made of."""

    key: str
    id: str  # the id's canonical text (as given to key_for, also in newest-first layouts)
    ms: int  # the id's time (epoch milliseconds)
    shard: int | None
    period: str | None  # the period folder, e.g. 'dt=2024-05-17/hr=09/'
    suffix: str

    @property
    def ulid(self) -> ULID:
        """The id as a :class:`~ulidkeys.ULID` (layouts of the default scheme only)."""
        return ULID.from_str(self.id)


@dataclass(frozen=True)
class KeyLayout:
    """``prefix`` + shard folder + period folder + id + suffix; see docs/s3.md.

    * ``prefix``: any text such as ``"uploads/"`` or ``"tenant/acme/"`` (may be empty);
    * ``shards``: None for no shard folder, else N folders ``00/`` .. ``N-1/`` (fixed width),
      the shard derived from the id (:func:`~ulidkeys.ids.protocol.shard_of`), so the key can
      be rebuilt from the id alone;
    * ``period``: ``None`` or a period S3 layouts offer
      (:data:`~ulidkeys.planning.periods.LAYOUT_PERIOD_NAMES`): ``"hour"``
      (``dt=2024-05-17/hr=09/``), ``"day"`` (``dt=2024-05-17/``), ``"week"`` (ISO weeks,
      ``wk=2024-W20/``) or ``"month"`` (``dt=2024-05/``), in UTC, Hive-style for Athena/Glue
      partition projection;
    * ``suffix``: text after the id (``".jpg"``); a per-call ``ext`` replaces it;
    * ``scheme``: the id scheme (default ULID); its text must sort by time;
    * ``newest_first``: keys embed the id with its time inverted
      (:func:`~ulidkeys.ids.protocol.invert_id`: same width and alphabet), so ListObjectsV2
      returns the newest first and "the 20 newest" is one call; ``parse`` gives back the
      original id. No period folders (they would list oldest first).
    """

    prefix: str = ""
    shards: int | None = None
    period: str | None = None
    suffix: str = ""
    scheme: IdScheme = ULID_SCHEME
    newest_first: bool = False
    _width: int = field(default=0, init=False, repr=False, compare=False)
    _partition: Period | None = field(default=None, init=False, repr=False, compare=False)
    _id_re: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _time_of: Callable[[str], int] = field(init=False, repr=False, compare=False)
    _folder_of: Callable[[str], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_text(self.prefix, "prefix", InvalidLayout)
        check_text(self.suffix, "suffix", InvalidLayout)
        require_shards(self.shards, InvalidLayout, "no shard folder")
        partition = layout_period(self.period)
        key_scheme(self.scheme, InvalidLayout)
        require_bool(self.newest_first, "newest_first")
        if self.newest_first and self.period is not None:
            raise InvalidLayout(
                f"period={self.period!r} with newest_first=True: period folders sort oldest "
                "first, so the listing would not be newest first; drop one of them"
            )
        width = max(2, len(str(self.shards - 1))) if self.shards else 0
        object.__setattr__(self, "_width", width)
        object.__setattr__(self, "_partition", partition)
        object.__setattr__(self, "_id_re", re.compile(self.scheme.pattern))
        # the time and shard folder of an id the pattern matched: a scheme may read them
        # without checking the id again (every listed key is split)
        quick = getattr(self.scheme, "canonical_time", None)
        object.__setattr__(self, "_time_of", quick or self.scheme.timestamp_ms)
        object.__setattr__(self, "_folder_of", self._shard_folder_reader())
        # The longest key the layout can make (with an extension of 33 characters) must be valid.
        sample = self.path(0 if self.shards else None, 0)
        sample += self.scheme.min_for(max(self.scheme.min_ms, 0))
        check_key(sample + self.suffix, "layout key (prefix + ... + suffix)", InvalidLayout)
        check_key(sample + "." + "x" * 32, "layout key with an extension", InvalidLayout)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its declaration (for a worker: a Dask task, a process pool); the readers
        # cached above are made again on arrival.
        return (
            KeyLayout,
            (self.prefix, self.shards, self.period, self.suffix, self.scheme, self.newest_first),
        )

    # --- key parts ----------------------------------------------------------------------
    def shard_of(self, id_text: str) -> int | None:
        """The shard of an id (canonical text), or None without shards."""
        return None if not self.shards else shard_of(self.scheme, id_text, self.shards)

    def _shard_folder_reader(self) -> Callable[[str], str]:
        """The shard folder of a canonical id, as fast as the scheme allows."""
        random_of = getattr(self.scheme, "canonical_random", None)
        if not self.shards or random_of is None:
            return lambda id_text: self.shard_folder(self.shard_of(id_text))
        shards, folders = self.shards, [self.shard_folder(n) for n in range(self.shards)]
        return lambda id_text: folders[random_of(id_text) % shards]

    def shard_folder(self, shard: int | None) -> str:
        """``'07/'`` for shard 7 (fixed width), ``''`` without shards."""
        return "" if shard is None else f"{shard:0{self._width}d}/"

    def shard_numbers(self) -> list[int | None]:
        """Every shard a window must be listed in: ``[None]`` without shards."""
        return list(range(self.shards)) if self.shards else [None]

    def period_folder(self, ms: int) -> str:
        """The UTC period folder of an epoch millisecond (``''`` without a period)."""
        return "" if self._partition is None else self._partition.folder(ms)

    @property
    def partition(self) -> Period | None:
        """The period of the folders, as a :class:`~ulidkeys.planning.periods.Period`."""
        return self._partition

    @property
    def first_ms(self) -> int:
        """The first millisecond a key of this layout can carry (folders start in 1970)."""
        first = self.scheme.min_ms
        return first if self._partition is None else max(first, 0)

    @property
    def last_ms(self) -> int:
        """The last millisecond a key of this layout can carry (folders end in year 9999)."""
        last = self.scheme.max_ms
        return last if self._partition is None else min(last, PARTITION_LIMIT_MS - 1)

    def key_window(self, start_ms: int, end_ms: int) -> tuple[int, int]:
        """The window of the times *in the keys* holding ``[start, end)``: itself, or the
        inverted window of a newest-first layout (what listing plans bound keys with)."""
        return key_window(self.scheme, self.newest_first, start_ms, end_ms)

    def path(self, shard: int | None, ms: int) -> str:
        """Everything before the id: prefix + shard folder + period folder of ``ms``."""
        return self.prefix + self.shard_folder(shard) + self.period_folder(ms)

    # --- building keys ------------------------------------------------------------------
    def id_text(self, value: object) -> str:
        """The canonical text of an id given as text or as an id object (``ULID``,
        ``uuid.UUID``, python-ulid, svix-ksuid, ``bson.ObjectId``; ints for numeric schemes)."""
        return coerce_id(self.scheme, value)

    def key_for(self, id_value: object, ext: str | None = None) -> str:
        """The key of an existing id; ``ext`` (``'jpg'`` or ``'.jpg'``) replaces the suffix."""
        text = self.id_text(id_value)
        suffix = self.suffix if ext is None else normalize_ext(ext)
        ms = self._time_of(text)  # canonical text: read as a listed key's id is
        if self.newest_first:
            text = invert_id(self.scheme, text)
        if self._partition is not None and not 0 <= ms < PARTITION_LIMIT_MS:
            raise InvalidKeyPart(
                f"id {text} has time {ms} ms, which no period folder can name (they span "
                "1970-01-01 .. 9999-12-31)"
            )
        # the shard folder as split() checks it, then the whole key against the key rules
        key = self.prefix + self._folder_of(text) + self.period_folder(ms) + text + suffix
        return check_key(key, "key", InvalidKeyPart)

    def new_key(self, ext: str | None = None) -> str:
        """A key for a fresh id of the current millisecond."""
        make = getattr(self.scheme, "new", None)
        if make is None:
            raise InvalidLayout(f"the {self.scheme.name} scheme cannot make new ids")
        return self.key_for(make(), ext)

    # --- reading keys -------------------------------------------------------------------
    def split(self, key: str) -> tuple[str, str, int, str | None]:
        """``(id, suffix, ms, None)`` for a key that fits, ``("", "", -1, reason)`` otherwise.

        The fast path used on every listed key; :meth:`parse` wraps it with an exception.
        ``id`` is the id as the key holds it (inverted in a newest-first layout, so ids order
        like keys); ``ms`` is always the id's real time.
        """
        prefix = self.prefix
        if not key.startswith(prefix):
            return "", "", -1, f"it does not start with the prefix {prefix!r}"
        pos = len(prefix)
        shard_text = ""
        if self._width:
            shard_text = key[pos : pos + self._width + 1]
            pos += self._width + 1
        folder = ""
        if self._partition is not None:
            folder = key[pos : pos + self._partition.folder_length]
            pos += len(folder)
        end = pos + self.scheme.length
        id_text = key[pos:end]
        if self._id_re.fullmatch(id_text) is None:
            return "", "", -1, f"no canonical {self.scheme.name} id at position {pos}"
        suffix = key[end:]
        if suffix != self.suffix and _EXT_RE.fullmatch(suffix) is None:
            return (
                "",
                "",
                -1,
                f"its suffix {suffix!r} is neither the layout suffix {self.suffix!r} nor "
                f"{_EXT_RULE}",
            )
        try:
            ms = self._time_of(id_text)
        except InvalidValue as error:
            return "", "", -1, str(error)
        if self.newest_first:
            ms = inverted_time(self.scheme, ms)
        if self._width and shard_text != self._folder_of(id_text):
            return "", "", -1, f"its shard folder {shard_text!r} is not the id's shard"
        if self._partition is not None and (
            not 0 <= ms < PARTITION_LIMIT_MS or folder != self._partition.folder(ms)
        ):
            return "", "", -1, f"its period folder {folder!r} is not the one of the id's time"
        return id_text, suffix, ms, None

    def locator(self) -> Callable[[str], Located | None]:
        """The test every listed key passes, made once for this layout: ``(id, ms, key)`` for a
        key that fits, None otherwise - exactly :meth:`split`'s verdict (a property test holds
        them equal), without its reasons.

        The id is matched in place at its fixed offset (no slice before the match), and the
        period folder is checked against the last one computed: keys come sorted, so a page
        computes a folder's text once, not once per key.
        """
        prefix, scheme, partition = self.prefix, self.scheme, self._partition
        shard_at = len(prefix)
        width = self._width + 1 if self._width else 0
        folder_at = shard_at + width
        folder_length = partition.folder_length if partition is not None else 0
        start = folder_at + folder_length
        end = start + scheme.length
        id_match, ext_match, suffix = self._id_re.fullmatch, _EXT_RE.fullmatch, self.suffix
        time_of, folder_of = self._time_of, self._folder_of if width else None
        # shard folders from the id's random bits, read in place when the scheme can
        random_of = getattr(scheme, "canonical_random", None) if width else None
        folders = [self.shard_folder(n) for n in range(self.shards or 0)]
        shards = self.shards or 1
        newest_first = self.newest_first
        # (first ms, end ms, folder text) of the last period folder computed: one tuple, read
        # and replaced whole, so threads sharing the plan never see a half-updated one
        last: list[tuple[int, int, str]] = [(0, -1, "")]

        def locate(key: str) -> Located | None:
            if not key.startswith(prefix) or id_match(key, start, end) is None:
                return None
            tail = key[end:]
            if tail != suffix and ext_match(tail) is None:
                return None
            id_text = key[start:end]
            try:
                ms = time_of(id_text)
            except InvalidValue:
                return None
            if newest_first:
                ms = inverted_time(scheme, ms)
            if random_of is not None:
                if key[shard_at:folder_at] != folders[random_of(id_text) % shards]:
                    return None
            elif folder_of is not None and key[shard_at:folder_at] != folder_of(id_text):
                return None
            if partition is not None:
                first, following, folder = last[0]
                if not first <= ms < following:
                    if not 0 <= ms < PARTITION_LIMIT_MS:
                        return None
                    first = partition.floor(ms)
                    folder = partition.folder(ms)
                    last[0] = (first, partition.next(first), folder)
                if key[folder_at:start] != folder:
                    return None
            return id_text, ms, key

        return locate

    def run_locator(self) -> Callable[[list[str]], KeyRun | None] | None:
        """The test of :meth:`locator` for a page of keys at once, made once for this layout:
        given keys in strictly ascending order (a listing's page, its order checked by the
        caller), ``(ids, first ms, last ms)`` when every one of them fits, else None (then
        each key is read with :meth:`locator`, which says which ones do not). None for a
        layout it cannot read so (a scheme without bulk checks, keys with inverted ids).

        Each check runs in C over the whole page, with no Python step per key, and the
        verdicts are :meth:`locator`'s (a property test holds them equal). Sorted keys that
        share their first and last key's head (prefix, shard folder, period folder) all
        share it, and then their ids ascend with them: the first and last ids give the
        times, and one period folder is checked against the folders of those two times
        (a folder covers one interval of time).
        """
        scheme, partition = self.scheme, self._partition
        all_canonical = getattr(scheme, "all_canonical", None)
        time_of = getattr(scheme, "canonical_time", None)
        randoms_of = getattr(scheme, "canonical_randoms", None)
        if all_canonical is None or time_of is None or self.newest_first:
            return None
        if self.shards and randoms_of is None:
            return None
        prefix, suffix, ext_match = self.prefix, self.suffix, _EXT_RE.fullmatch
        shard_at = len(prefix)
        folder_at = shard_at + (self._width + 1 if self._width else 0)
        start = folder_at + (partition.folder_length if partition is not None else 0)
        end = start + scheme.length
        id_of, tail_of = itemgetter(slice(start, end)), itemgetter(slice(end, None))
        shards = self.shards or 0
        shard_numbers = {self.shard_folder(n): n for n in range(shards)}

        def locate_run(keys: list[str]) -> KeyRun | None:
            if not keys:
                return None
            head = keys[0][:start]
            if not head.startswith(prefix) or len(head) != start or keys[-1][:start] != head:
                return None
            ids = list(map(id_of, keys))
            if not all_canonical(ids):
                return None
            for tail in set(map(tail_of, keys)):
                if tail != suffix and ext_match(tail) is None:
                    return None
            first, last = time_of(ids[0]), time_of(ids[-1])
            if shards and randoms_of is not None:  # never None with shards (see above)
                shard = shard_numbers.get(head[shard_at:folder_at])
                if shard is None:
                    return None
                if any(map(ne, map(mod, randoms_of(ids), repeat(shards)), repeat(shard))):
                    return None  # a key in another shard's folder
            if partition is not None:
                folder = head[folder_at:]
                if not 0 <= first <= last < PARTITION_LIMIT_MS:
                    return None
                if partition.folder(first) != folder or partition.folder(last) != folder:
                    return None
            return ids, first, last

        return locate_run

    def parse(self, key: str) -> KeyParts:
        """Split a key into shard, period folder, id, suffix; KeyMismatch if it does not fit."""
        check_text(key, "key", KeyMismatch)
        id_text, suffix, ms, reason = self.split(key)
        if reason is not None:
            raise KeyMismatch(f"key={describe(key)} does not fit {self}: {reason}")
        return KeyParts(
            key=key,
            id=invert_id(self.scheme, id_text) if self.newest_first else id_text,
            ms=ms,
            shard=self.shard_of(id_text),
            period=self.period_folder(ms) or None,
            suffix=suffix,
        )

    def plan_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        cursor: str | None = None,
        max_keys: int = MAX_KEYS,
        directory_bucket: bool = False,
    ) -> Plan[ListCall]:
        """The ``ListObjectsV2`` calls that list exactly this layout's keys whose id time is in
        ``[since, until)``: plain data, printable (``.explain()``), made without a client.

        ``since`` defaults to the epoch, ``until`` to now; with ``cursor=`` and neither, the
        cursor's window is resumed just past its last key. ``after=`` (a key a listing
        returned) resumes past that key. ``max_keys`` (1..1000) is each call's page size;
        ``directory_bucket`` plans for an S3 Express bucket (unordered, folder by folder).
        ``Bucket.plan_window`` is this plan for its own layout and bucket kind.
        """
        start, end = resolve_window(since, until, cursor)
        return plan_listing(
            self,
            start,
            end,
            after=after,
            cursor=cursor,
            max_keys=max_keys,
            directory_bucket=directory_bucket,
        )

    def fits(self, key: str) -> bool:
        """Whether ``key`` is one this layout could have made (InvalidType if not a str)."""
        if not isinstance(key, str):
            check_text(key, "key", KeyMismatch)  # raises InvalidType
        return self.split(key)[3] is None

    def suffix_filter(self, suffix: object) -> str:
        """``suffix`` as keys of this layout can end after their id: the layout's suffix, or
        an extension as ``ext=`` takes it (``'jpg'`` -> ``'.jpg'``, the text ``put_new(ext=
        'jpg')`` writes). Anything else no key of the layout holds, so a filter by it would
        answer empty whatever the bucket holds: InvalidKeyPart."""
        if suffix == self.suffix:
            return self.suffix
        text = check_text(suffix, "suffix", InvalidKeyPart)
        dotted = text if text.startswith(".") else "." + text
        if _EXT_RE.fullmatch(dotted) is None:
            raise InvalidKeyPart(
                f"suffix={describe(suffix)} is never the text after the id in a key of {self}: "
                f"pass the layout suffix {self.suffix!r} or {_EXT_RULE}"
            )
        return dotted

    def __str__(self) -> str:
        parts = [repr(self.prefix)]
        if self.shards:
            parts.append(f"<shard {self.shard_folder(0)}..{self.shard_folder(self.shards - 1)}>")
        if self._partition is not None:
            parts.append(self._partition.folder_form)
        order = ", newest first" if self.newest_first else ""
        parts.append(f"<{self.scheme.name}{order}>")
        if self.suffix:
            parts.append(repr(self.suffix))
        return "KeyLayout(" + " + ".join(parts) + ")"
