"""ulidkeys: time-sortable keys (ULID first) for Amazon S3 and DynamoDB.

The core (``ULID``, ``new``, ``batch``, ``Monotonic``) uses the standard library only; the AWS
parts live in ``ulidkeys.s3`` and ``ulidkeys.dynamodb`` and need ``boto3``.
"""

from ulidkeys import errors
from ulidkeys.ids.inspection import Inspection, inspect
from ulidkeys.planning.prefixcover import PrefixCover, resolution_table
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.ulid import (
    MAX_BATCH,
    MAX_ULID,
    MIN_ULID,
    ULID,
    BaseMonotonicPolicy,
    LaxMonotonicPolicy,
    Monotonic,
    MonotonicityPolicy,
    PureRandomPolicy,
    StrictMonotonicPolicy,
    ULIDGenerator,
    batch,
    monotonic,
    new,
)

__all__ = [
    "MAX_BATCH",
    "MAX_ULID",
    "MIN_ULID",
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
    "errors",
    "inspect",
    "monotonic",
    "new",
    "resolution_table",
]
#: The version, written here only: the package metadata reads it (``pyproject.toml`` declares
#: it dynamic), and ``import ulidkeys`` needs no ``importlib.metadata`` (25 ms) to give it.
__version__ = "0.1.0"
