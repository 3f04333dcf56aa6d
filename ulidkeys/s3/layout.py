"""S3 key layouts: ``prefix`` + shard folder + period folder + ULID + suffix, built and parsed.

Pure string work with no I/O. A layout is reversible: every part of a key is derived from its
ULID (the shard from its random bits, the period folder from its time), so ``parse`` can tell a
key that fits from one that merely looks similar. The AWS calls are thin wrappers at the end.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from ulidkeys import base32
from ulidkeys.errors import (
    InvalidKeyPart,
    InvalidLayout,
    InvalidType,
    KeyMismatch,
    UlidkeysError,
    describe,
    require_int,
)
from ulidkeys.timeinput import TimeInput
from ulidkeys.ulid import ULID, new, parse_str

if TYPE_CHECKING:
    from ulidkeys.s3.listing import Listing, Period
    from ulidkeys.s3.plan import WindowPlan
    from ulidkeys.s3.writing import PresignedUpload

#: The longest key S3 accepts, in UTF-8 bytes.
MAX_KEY_BYTES = 1024
#: Period folders spell a 4-digit year, so they cannot name times from 10000-01-01 on.
PERIOD_LIMIT_MS = 253_402_300_800_000
#: Most shard folders a layout may have (every window is listed once per shard).
MAX_SHARDS = 1000

DAY_MS = 86_400_000
HOUR_MS = 3_600_000
PERIOD_MS: dict[str, int] = {"day": DAY_MS, "hour": HOUR_MS}
_FOLDER_LENGTH: dict[str, int] = {"day": len("dt=2024-05-17/"), "hour": len("dt=2024-05-17/hr=09/")}
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_ULID_RE = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
_EXT_RE = re.compile(r"\.[A-Za-z0-9._+-]{1,32}")
_EXT_RULE = "a dot followed by 1-32 letters, digits, '.', '_', '+' or '-' (e.g. '.jpg')"

PeriodName = Literal["day", "hour"]


def format_folder(period: PeriodName, ms: int) -> str:
    """``dt=2024-05-17/`` (day) or ``dt=2024-05-17/hr=09/`` (hour) of an epoch ms, in UTC."""
    if not 0 <= ms < PERIOD_LIMIT_MS:
        raise InvalidKeyPart(
            f"time {ms} ms is past 9999-12-31, the last day a period folder can name "
            "(dt=YYYY-MM-DD has four year digits)"
        )
    days, rest = divmod(ms, DAY_MS)
    day = date.fromordinal(_EPOCH_ORDINAL + days)
    folder = f"dt={day.year:04d}-{day.month:02d}-{day.day:02d}/"
    return folder if period == "day" else f"{folder}hr={rest // HOUR_MS:02d}/"


def parse_folder(period: PeriodName, folder: str) -> int | None:
    """The first ms of a period folder's span, None if ``folder`` is not exactly one."""
    if len(folder) != _FOLDER_LENGTH[period] or not folder.startswith("dt="):
        return None
    try:
        day = date.fromisoformat(folder[3:13])
        hour = int(folder[17:19]) if period == "hour" else 0
    except ValueError:
        return None
    ms = (day.toordinal() - _EPOCH_ORDINAL) * DAY_MS + hour * HOUR_MS
    return ms if 0 <= ms < PERIOD_LIMIT_MS and format_folder(period, ms) == folder else None


def _check_text(text: object, name: str, error: type[UlidkeysError]) -> str:
    """Reject non-strings, text S3 cannot store as UTF-8, and control characters."""
    if not isinstance(text, str):
        raise InvalidType(f"{name}={describe(text)} must be a str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise error(
            f"{name}={describe(text)} contains a lone surrogate; S3 keys are UTF-8 text"
        ) from None
    for position, char in enumerate(text):
        if unicodedata.category(char) == "Cc":
            raise error(
                f"{name}={describe(text)} contains the control character {char!r} at position "
                f"{position}; keys with control characters are unreadable in listings and "
                "consoles, so they are refused"
            )
    return text


def check_key(key: str, name: str, error: type[UlidkeysError]) -> str:
    """Reject key shapes that are legal in S3 but odd or unsafe when treated as paths."""
    _check_text(key, name, error)
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
    _check_text(ext, "ext", InvalidKeyPart)
    dotted = ext if ext.startswith(".") else "." + ext
    if not _EXT_RE.fullmatch(dotted):
        raise InvalidKeyPart(f"ext={describe(ext)} is not an extension: expected {_EXT_RULE}")
    return dotted


@dataclass(frozen=True)
class KeyParts:
    """What a key that fits a layout is made of."""

    key: str
    ulid: ULID
    shard: int | None
    period: str | None  # the period folder, e.g. 'dt=2024-05-17/hr=09/'
    suffix: str


@dataclass(frozen=True)
class KeyLayout:
    """``prefix`` + shard folder + period folder + ULID + suffix; see docs/s3.md.

    * ``prefix``: any text such as ``"uploads/"`` or ``"tenant/acme/"`` (may be empty);
    * ``shards``: 0 for none, else N folders ``00/`` .. ``N-1/`` (fixed width), the shard being
      the ULID's 80 random bits modulo N, so the key can be rebuilt from the id alone;
    * ``period``: ``None``, ``"day"`` (``dt=2024-05-17/``) or ``"hour"``
      (``dt=2024-05-17/hr=09/``), in UTC, Hive-style for Athena/Glue partition projection;
    * ``suffix``: text after the ULID (``".jpg"``); a per-call ``ext`` replaces it.
    """

    prefix: str = ""
    shards: int = 0
    period: PeriodName | None = None
    suffix: str = ""
    _width: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_text(self.prefix, "prefix", InvalidLayout)
        _check_text(self.suffix, "suffix", InvalidLayout)
        require_int(self.shards, "shards")
        if not 0 <= self.shards <= MAX_SHARDS:
            raise InvalidLayout(
                f"shards={self.shards} is out of range: use 0 (no shard folder) to {MAX_SHARDS}"
            )
        if self.period not in (None, "day", "hour"):
            raise InvalidLayout(f"period={describe(self.period)} must be None, 'day' or 'hour'")
        width = max(2, len(str(self.shards - 1))) if self.shards else 0
        object.__setattr__(self, "_width", width)
        # The longest key the layout can make (with an extension of 33 characters) must be valid.
        sample = self.prefix + "0" * width + "/" * bool(width)
        sample += "dt=2024-05-17/hr=09/"[: _FOLDER_LENGTH[self.period]] if self.period else ""
        sample += base32.encode_time(0) + "0" * 16
        check_key(sample + self.suffix, "layout key (prefix + ... + suffix)", InvalidLayout)
        check_key(sample + "." + "x" * 32, "layout key with an extension", InvalidLayout)

    # --- key parts ----------------------------------------------------------------------
    def shard_of(self, ulid: str | ULID) -> int | None:
        """The shard of a ULID (its random bits modulo ``shards``), or None without shards."""
        if not self.shards:
            return None
        return base32.decode(str(ulid)[10:]) % self.shards

    def shard_folder(self, shard: int | None) -> str:
        """``'07/'`` for shard 7 (fixed width), ``''`` without shards."""
        return "" if shard is None else f"{shard:0{self._width}d}/"

    def period_folder(self, ms: int) -> str:
        """The UTC period folder of an epoch millisecond (``''`` without a period)."""
        return "" if self.period is None else format_folder(self.period, ms)

    def path(self, shard: int | None, ms: int) -> str:
        """Everything before the ULID: prefix + shard folder + period folder of ``ms``."""
        return self.prefix + self.shard_folder(shard) + self.period_folder(ms)

    # --- building keys ------------------------------------------------------------------
    def key_for(self, ulid: str | ULID, ext: str | None = None) -> str:
        """The key of an existing ULID; ``ext`` (``'jpg'`` or ``'.jpg'``) replaces the suffix."""
        text = ulid._str if isinstance(ulid, ULID) else parse_str(ulid)
        suffix = self.suffix if ext is None else normalize_ext(ext)
        key = self.path(self.shard_of(text), base32.decode(text[:10])) + text + suffix
        return check_key(key, "key", InvalidKeyPart)

    def new_key(self, ext: str | None = None) -> str:
        """A key for a fresh ULID of the current millisecond."""
        return self.key_for(new(), ext)

    # --- reading keys -------------------------------------------------------------------
    def split(self, key: str) -> tuple[str, str, int, str | None]:
        """``(ulid, suffix, ms, None)`` for a key that fits, ``("", "", -1, reason)`` otherwise.

        The fast path used on every listed key; :meth:`parse` wraps it with an exception.
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
        if self.period is not None:
            folder = key[pos : pos + _FOLDER_LENGTH[self.period]]
            pos += len(folder)
        ulid = key[pos : pos + 26]
        if _ULID_RE.fullmatch(ulid) is None:
            return (
                "",
                "",
                -1,
                (f"no canonical (uppercase) ULID at position {pos}, where the layout puts it"),
            )
        suffix = key[pos + 26 :]
        if suffix != self.suffix and _EXT_RE.fullmatch(suffix) is None:
            return (
                "",
                "",
                -1,
                (
                    f"its suffix {suffix!r} is neither the layout suffix {self.suffix!r} nor "
                    f"{_EXT_RULE}"
                ),
            )
        ms = base32.decode(ulid[:10])
        if self._width and shard_text != self.shard_folder(self.shard_of(ulid)):
            return (
                "",
                "",
                -1,
                (
                    f"its shard folder {shard_text!r} is not the ULID's shard "
                    f"{self.shard_folder(self.shard_of(ulid))!r}"
                ),
            )
        if self.period is not None and (ms >= PERIOD_LIMIT_MS or folder != self.period_folder(ms)):
            return "", "", -1, f"its period folder {folder!r} is not the one of the ULID's time"
        return ulid, suffix, ms, None

    def parse(self, key: str) -> KeyParts:
        """Split a key into shard, period folder, ULID, suffix; KeyMismatch if it does not fit."""
        _check_text(key, "key", KeyMismatch)
        ulid, suffix, ms, reason = self.split(key)
        if reason is not None:
            raise KeyMismatch(f"key={describe(key)} does not fit {self}: {reason}")
        return KeyParts(
            key=key,
            ulid=ULID._trusted(ulid),
            shard=self.shard_of(ulid),
            period=self.period_folder(ms) or None,
            suffix=suffix,
        )

    def fits(self, key: str) -> bool:
        """Whether ``key`` is one this layout could have made."""
        return self.split(key)[3] is None

    def __str__(self) -> str:
        parts = [repr(self.prefix)]
        if self.shards:
            parts.append(f"<shard {self.shard_folder(0)}..{self.shard_folder(self.shards - 1)}>")
        if self.period == "day":
            parts.append("dt=YYYY-MM-DD/")
        elif self.period == "hour":
            parts.append("dt=YYYY-MM-DD/hr=HH/")
        parts.append("<ULID>")
        if self.suffix:
            parts.append(repr(self.suffix))
        return "KeyLayout(" + " + ".join(parts) + ")"

    # --- planning and AWS calls (thin wrappers; see plan.py, listing.py, writing.py) ----
    def plan_window(
        self,
        since: TimeInput,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        directory_bucket: bool = False,
    ) -> WindowPlan:
        """The ListObjectsV2 calls that list exactly the window (plain data, printable)."""
        from ulidkeys.s3.plan import plan_window
        from ulidkeys.timewindow import TimeWindow

        return plan_window(
            self, TimeWindow(since, until), after=after, directory_bucket=directory_bucket
        )

    def list_window(
        self,
        client: Any,
        bucket: str,
        since: TimeInput,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        max_workers: int = 8,
    ) -> Listing:
        """The objects whose ULID time is in ``[since, until)``, oldest first."""
        from ulidkeys.s3.listing import execute, is_directory_bucket

        plan = self.plan_window(
            since, until, after=after, directory_bucket=is_directory_bucket(bucket)
        )
        return execute(plan, client, bucket, max_workers=max_workers)

    def latest(
        self,
        client: Any,
        bucket: str,
        n: int,
        before: TimeInput | None = None,
        *,
        max_workers: int = 8,
    ) -> Listing:
        """The ``n`` newest objects with ULID time before ``before`` (default now), newest first."""
        from ulidkeys.s3.listing import latest

        return latest(self, client, bucket, n, before, max_workers=max_workers)

    def periods(
        self, client: Any, bucket: str, since: TimeInput, until: TimeInput | None = None
    ) -> list[Period]:
        """The period folders overlapping the window that hold data (Delimiter='/' listing)."""
        from ulidkeys.s3.listing import periods
        from ulidkeys.timewindow import TimeWindow

        return periods(self, client, bucket, TimeWindow(since, until))

    def put_new(
        self,
        client: Any,
        bucket: str,
        body: Any,
        *,
        ext: str | None = None,
        attempts: int = 5,
        **put_kwargs: Any,
    ) -> str:
        """Upload under a fresh key that is never an existing object's; returns the key."""
        from ulidkeys.s3.writing import put_new

        return put_new(self, client, bucket, body, ext=ext, attempts=attempts, **put_kwargs)

    def presigned_put(
        self,
        client: Any,
        bucket: str,
        *,
        expires: int = 3600,
        content_type: str | None = None,
        ext: str | None = None,
    ) -> PresignedUpload:
        """A fresh key and a presigned PUT URL (with the headers the uploader must send)."""
        from ulidkeys.s3.writing import presigned_put

        return presigned_put(
            self, client, bucket, expires=expires, content_type=content_type, ext=ext
        )

    def presigned_post(
        self,
        client: Any,
        bucket: str,
        *,
        expires: int = 3600,
        content_type: str | None = None,
        max_bytes: int | None = None,
        ext: str | None = None,
    ) -> PresignedUpload:
        """A fresh key and the URL + form fields of a browser POST upload."""
        from ulidkeys.s3.writing import presigned_post

        return presigned_post(
            self,
            client,
            bucket,
            expires=expires,
            content_type=content_type,
            max_bytes=max_bytes,
            ext=ext,
        )
