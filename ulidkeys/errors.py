"""Exceptions raised by ulidkeys.

Every error derives from :class:`UlidkeysError`, so one ``except`` catches them all. Bad
values are also :class:`ValueError` (bad types :class:`TypeError`), and each message names the
offending input and the rule it broke. What it offers, by whose fault it is:

- bad input: :class:`InvalidValue` (a ``ValueError``) and its kinds - ids
  (:class:`InvalidId`, :class:`InvalidULID`), times (:class:`InvalidTime`,
  :class:`NaiveDatetime`, :class:`TimeOutOfRange`), windows, cursors, slices and checkpoints
  (:class:`InvalidWindow`, :class:`InvalidCursor`, :class:`InvalidSlice`,
  :class:`InvalidCheckpoint`, :class:`InvalidPrefixBudget`), keys and layouts
  (:class:`KeyMismatch`, :class:`InvalidLayout`, :class:`InvalidKeyPart`,
  :class:`InvalidKeyTemplate`, :class:`KeyAttributeClash`, :class:`InvalidKeyField`,
  :class:`InvalidQuery`), config files (:class:`InvalidConfig`); :class:`InvalidType` (a
  ``TypeError``) and :class:`UnsupportedClient`;
- generators: :class:`MonotonicOverflow`, :class:`TicketsExhausted`,
  :class:`ClockMovedBackwards`, :class:`ForkedGenerator`;
- what AWS reported: :class:`ServiceError`, :class:`UnexpectedResponse`,
  :class:`UnorderedListing`, :class:`UnprocessedItemsLeft`, and the write conflicts
  :class:`WriteConflict`, :class:`ItemAlreadyExists`, :class:`UploadConflict`,
  :class:`CheckpointConflict`, :class:`TicketCounterMismatch`;
- a warning: :class:`SmallConnectionPool`.
"""

from __future__ import annotations

import os
from pathlib import Path

# Every exception (and the one warning) is public: code catches them. The helpers below the
# classes (require_int, describe, ...) are the package's own.
__all__ = [
    "CheckpointConflict",
    "ClockMovedBackwards",
    "ForkedGenerator",
    "InvalidCheckpoint",
    "InvalidConfig",
    "InvalidCursor",
    "InvalidId",
    "InvalidKeyField",
    "InvalidKeyPart",
    "InvalidKeyTemplate",
    "InvalidLayout",
    "InvalidPrefixBudget",
    "InvalidQuery",
    "InvalidSlice",
    "InvalidTime",
    "InvalidType",
    "InvalidULID",
    "InvalidValue",
    "InvalidWindow",
    "ItemAlreadyExists",
    "KeyAttributeClash",
    "KeyMismatch",
    "MonotonicOverflow",
    "NaiveDatetime",
    "ServiceError",
    "SmallConnectionPool",
    "TicketCounterMismatch",
    "TicketsExhausted",
    "TimeOutOfRange",
    "UlidkeysError",
    "UnexpectedResponse",
    "UnorderedListing",
    "UnprocessedItemsLeft",
    "UnsupportedClient",
    "UploadConflict",
    "WriteConflict",
]


class UlidkeysError(Exception):
    """Base class of every exception raised by ulidkeys."""


class InvalidValue(UlidkeysError, ValueError):
    """A value was of the right type but broke a rule (format, range, ...)."""


class InvalidType(UlidkeysError, TypeError):
    """A value was of a type the function does not accept."""


class InvalidId(InvalidValue):
    """Text or a number that is not a valid id of its scheme (ULID, UUIDv7, KSUID, ...)."""


class InvalidULID(InvalidId):
    """Text, bytes or an integer that is not a valid ULID."""


class InvalidTime(InvalidValue):
    """A time input that cannot be turned into epoch milliseconds."""


class NaiveDatetime(InvalidTime):
    """A ``datetime`` without a timezone: ulidkeys never guesses local time."""


class TimeOutOfRange(InvalidTime):
    """A time before the Unix epoch or past the 48-bit millisecond limit of a ULID."""


class InvalidWindow(InvalidValue):
    """A time window whose ends are inconsistent (for example ``since`` after ``until``)."""


class MonotonicOverflow(UlidkeysError, OverflowError, ValueError):
    """A monotonic generator used up all 2**80 values of one millisecond.

    The ULID spec says generation must fail rather than wrap around, which would break order.
    Also a ValueError: python-ulid raises ValueError here, and its users catch that.
    """


def require_int(value: object, name: str, expected: str = "an int") -> int:
    """``value`` if it is an int (a bool is not), else InvalidType naming it and its type."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidType(
            f"{name}={describe(value)} must be {expected}, not {type(value).__name__}"
        )
    return value


def require_str(value: object, name: str) -> str:
    """``value`` if it is a str, else InvalidType naming it and its type."""
    if not isinstance(value, str):
        raise InvalidType(f"{name}={describe(value)} must be a str, not {type(value).__name__}")
    return value


def require_bool(value: object, name: str) -> bool:
    """``value`` if it is a bool, else InvalidType: a flag given as text (``"false"``) or a
    number would be read by its truth and do the opposite of what it says."""
    if not isinstance(value, bool):
        raise InvalidType(f"{name}={describe(value)} must be a bool, not {type(value).__name__}")
    return value


def require_count(
    value: object,
    name: str,
    minimum: int = 0,
    maximum: int | None = None,
    *,
    optional: bool = False,
) -> int | None:
    """An int in ``minimum .. maximum``: InvalidType for another type, InvalidValue out of range.

    The one check behind every count, size, limit and worker number the library takes; with
    ``optional`` True, None passes through (meaning "no limit").
    """
    if value is None and optional:
        return None
    number = require_int(value, name, "an int or None" if optional else "an int")
    if number < minimum or (maximum is not None and number > maximum):
        bound = f"{minimum} .. {maximum}" if maximum is not None else f">= {minimum}"
        raise InvalidValue(f"{name}={describe(number)} is out of range: it must be {bound}")
    return number


def folder_problem(folder: Path) -> str | None:
    """Why no file can be made in ``folder`` (None: one can): what a local file the library
    or the CLI will write (a checkpoint, a manifest) is checked for before any work."""
    if not folder.exists():
        return f"the folder {str(folder)!r} does not exist"
    if not folder.is_dir():
        return f"{str(folder)!r} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to make files in {str(folder)!r}"
    return None


def aws_error(error: BaseException) -> tuple[str | None, int | None]:
    """``(code, HTTP status)`` of an error AWS reported (a botocore ``ClientError``), else
    ``(None, None)``: how adapters tell a conflict from any other failure."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return None, None
    code = response.get("Error", {}).get("Code")
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return (code if isinstance(code, str) else None), (status if isinstance(status, int) else None)


def retried(error: BaseException) -> bool:
    """Whether botocore sent the request that ended in ``error`` more than once.

    Only then can a conditional write have met its own earlier attempt (the write landed, its
    reply was lost): botocore records the retries in the error's ``ResponseMetadata``.
    """
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return False
    attempts = response.get("ResponseMetadata", {}).get("RetryAttempts")
    return isinstance(attempts, int) and attempts > 0


def describe(value: object, limit: int = 80) -> str:
    """Render an offending input for an error message, shortened if very long."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"  # repr() refuses over 4,300 digits
    try:
        text = repr(value)
    except Exception:  # a huge int inside a container, or a broken __repr__
        return f"a {type(value).__name__} that cannot be shown"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ClockMovedBackwards(UlidkeysError, RuntimeError):
    """A Snowflake-style generator saw its clock go back; it raises rather than risk a duplicate
    (or, configured to wait, the clock stayed behind for longer than it may wait; or a step's
    sequence was used up and the clock stood still for longer than ``max_wait_ms``)."""


class TicketsExhausted(UlidkeysError, OverflowError):
    """A ticket counter reached the largest ticket (2**64 - 1); it never wraps around."""


class ForkedGenerator(UlidkeysError, RuntimeError):
    """A node-numbered generator was used in a forked child without a node of its own: parent
    and child would issue the same ids. Call ``rebind(node)`` in the child first."""


# --- time windows and prefix covers (ulidkeys.planning.timewindow, ulidkeys.planning.prefixcover)


class InvalidPrefixBudget(InvalidValue):
    """A prefix-cover budget (``max_prefixes``) below 1."""


# --- keys of S3 layouts and DynamoDB entities --------------------------------------------


class KeyMismatch(InvalidValue):
    """A key or item that does not fit the S3 layout or DynamoDB entity it was parsed with."""


class InvalidCursor(InvalidValue):
    """A resume cursor that is not one, or belongs to another window, layout or direction."""


class InvalidCheckpoint(InvalidValue):
    """A consumer checkpoint that is damaged, of a newer format, or of another listing."""


class InvalidSlice(InvalidValue):
    """A window slice that is damaged, or belongs to another window or listing."""


# --- failures S3 or DynamoDB reported, or that their answers showed ------------------------


class ServiceError(UlidkeysError):
    """Base of the failures reported by AWS or seen in its answers (not the caller's input).

    A listing or query that raises one of these can be resumed from its last ``cursor``.
    """


class UnexpectedResponse(ServiceError):
    """An answer that breaks the service's documented contract (a page without ``IsTruncated``,
    keys out of order): the listing stops loudly instead of ending early and silently."""


class WriteConflict(ServiceError):
    """A conditional write found the key taken; nothing stored was overwritten."""


class CheckpointConflict(WriteConflict):
    """Another consumer committed the checkpoint since this one loaded it; nothing was stored.

    The losing run's items may also have gone to the winner (at-least-once); its commit is
    refused, so later runs continue from the winner's checkpoint and deliver nothing twice.
    """


class UnsupportedClient(InvalidType):
    """A client object the library cannot use (it raises rather than return an empty answer)."""


# --- DynamoDB (ulidkeys.dynamodb) ---------------------------------------------------------


class InvalidKeyTemplate(InvalidValue):
    """A key template such as ``"Post#{id}"`` that breaks a rule (placeholders, separators)."""


class KeyAttributeClash(InvalidKeyTemplate):
    """An index key attribute that is also the table's (or another index's) key attribute but
    would hold another value: ``keys()`` would return one key in place of the other, and a
    ``put_item`` of them would write to the wrong partition. Refused when the entity is declared.

    ``index`` names the index, ``setting`` the argument (``"pk_attr"`` or ``"sk_attr"``),
    ``attr`` the attribute name, ``defaulted`` whether the name is the default (not given),
    ``reason`` the rest of the message (what the attribute already holds, and the fix).
    """

    def __init__(
        self,
        message: str,
        index: str = "",
        setting: str = "",
        attr: str = "",
        defaulted: bool = False,
        reason: str = "",
    ) -> None:
        super().__init__(message)
        self.index = index
        self.setting = setting
        self.attr = attr
        self.defaulted = defaulted
        self.reason = reason


class InvalidKeyField(InvalidValue):
    """A key field value that is missing, empty, of the wrong type or holds the separator."""


class InvalidQuery(InvalidValue):
    """Query arguments that cannot form a query (missing table name, unknown index, ...)."""


class ItemAlreadyExists(WriteConflict):
    """``put_new`` found an item with the same primary key; the stored item was kept as it was."""

    def __init__(self, message: str, key: dict[str, object]) -> None:
        super().__init__(message)
        self.key = key


class TicketCounterMismatch(WriteConflict):
    """A ticket counter item was set up with another increment/offset split than the server
    using it: two counters share one item, which would hand out duplicates. Nothing was taken."""


class UnprocessedItemsLeft(ServiceError):
    """A batch writer with ``max_attempts`` gave up; ``.requests`` holds every unwritten request."""

    def __init__(self, message: str, requests: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.requests = requests


# --- S3 key layouts and listings (ulidkeys.s3) ---------------------------------------------


class InvalidLayout(InvalidValue):
    """A ``KeyLayout`` whose prefix, shard count, period or suffix breaks a rule."""


class InvalidKeyPart(InvalidValue):
    """A caller-supplied key part (extension, cursor) that would make an odd or unsafe key."""


class UnorderedListing(UnexpectedResponse):
    """A general-purpose listing returned keys out of order (a directory bucket?)."""


class UploadConflict(WriteConflict):
    """``put_new`` met a conflicting write on every fresh key it tried (should never happen)."""


class InvalidConfig(InvalidValue):
    """A config file (``ulidkeys.toml``, ``[tool.ulidkeys]``) with an unknown key, a wrong type
    or a layout that breaks a rule; the message names the file, the table and the key."""


class SmallConnectionPool(UserWarning):
    """More requests would be in flight than the client keeps connections for (each one past
    them pays a new connection): raise the client's ``max_pool_connections``."""
