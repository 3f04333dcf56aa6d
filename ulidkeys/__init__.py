"""ulidkeys: time-sortable keys (ULID first) for Amazon S3 and DynamoDB.

The core uses the standard library only; the AWS parts live in ``ulidkeys.s3`` and
``ulidkeys.dynamodb`` and need ``boto3``. What it offers:

- ULIDs: :class:`ULID` (the value: parse, convert, compare), :func:`new` (a fresh ULID's text,
  the fastest path), :func:`batch` (many of one millisecond), :func:`monotonic` and
  :class:`Monotonic` (strictly increasing ids);
- python-ulid's generator API: :class:`ULIDGenerator` and its policies
  :class:`StrictMonotonicPolicy`, :class:`LaxMonotonicPolicy`, :class:`PureRandomPolicy`, and
  what a policy of your own follows (:class:`MonotonicityPolicy`) or subclasses
  (:class:`BaseMonotonicPolicy`); the process-wide generator is
  ``ulidkeys.ulid.default_generator``;
- time windows: :class:`TimeWindow` (``[since, until)`` from any time input, its exact ULID
  bounds), :class:`PrefixCover` (the prefixes that cover it) and :func:`resolution_table`
  (what one character of ULID time spans);
- any id: :func:`inspect` tells which scheme a text (or id object) is, as an
  :class:`Inspection`.

Errors are in ``ulidkeys.errors``; other id schemes in ``ulidkeys.ids``.
"""

from ulidkeys.ids.inspection import Inspection, inspect
from ulidkeys.planning.prefixcover import PrefixCover, resolution_table
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.ulid import ULID, Monotonic, ULIDGenerator
from ulidkeys.ulid.generation import batch
from ulidkeys.ulid.policies import (
    BaseMonotonicPolicy,
    LaxMonotonicPolicy,
    MonotonicityPolicy,
    PureRandomPolicy,
    StrictMonotonicPolicy,
    monotonic,
)
from ulidkeys.ulid.randomness import new

__all__ = [
    "ULID",
    "BaseMonotonicPolicy",
    "Inspection",
    "LaxMonotonicPolicy",
    "Monotonic",
    "MonotonicityPolicy",
    "PrefixCover",
    "PureRandomPolicy",
    "StrictMonotonicPolicy",
    "TimeWindow",
    "ULIDGenerator",
    "batch",
    "inspect",
    "monotonic",
    "new",
    "resolution_table",
]
#: The version, written here only: the package metadata reads it (``pyproject.toml`` declares
#: it dynamic), and ``import ulidkeys`` needs no ``importlib.metadata`` (25 ms) to give it.
__version__ = "0.1.0"
