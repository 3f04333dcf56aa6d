"""ULID keys on Amazon S3: key layouts, exact time-window listings, safe uploads.

``layout.py`` and ``plan.py`` are pure (no AWS); ``listing.py`` and ``writing.py`` take a
boto3 client. Importing this package does not import boto3.
"""

from ulidkeys.s3.layout import MAX_KEY_BYTES, MAX_SHARDS, KeyLayout, KeyParts
from ulidkeys.s3.listing import Listing, ListingStats, Period, execute, is_directory_bucket
from ulidkeys.s3.plan import MAX_KEYS, ListCall, WindowPlan, plan_window
from ulidkeys.s3.writing import PresignedUpload

__all__ = [
    "MAX_KEYS",
    "MAX_KEY_BYTES",
    "MAX_SHARDS",
    "KeyLayout",
    "KeyParts",
    "ListCall",
    "Listing",
    "ListingStats",
    "Period",
    "PresignedUpload",
    "WindowPlan",
    "execute",
    "is_directory_bucket",
    "plan_window",
]
