"""Ids as keys on Amazon S3: key layouts, exact time-window listings, safe uploads.

``KeyLayout`` (pure) describes keys and makes plans; ``Bucket`` binds a layout to a client
and a bucket name and runs them. Importing this package does not import boto3.
"""

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.consuming import FileStore, LateArrival, MemoryStore
from ulidkeys.engine.threads import Consumption, Results
from ulidkeys.planning.checkpoints import Checkpoint
from ulidkeys.planning.layout import MAX_KEY_BYTES, MAX_SHARDS, KeyLayout, KeyParts
from ulidkeys.planning.listings import MAX_KEYS, ListCall, plan_folders, plan_window
from ulidkeys.planning.periods import PeriodFolder
from ulidkeys.planning.plans import Plan, Slice
from ulidkeys.s3.bucket import Bucket, ListingSource, is_directory_bucket
from ulidkeys.s3.checkpoints import S3CheckpointStore
from ulidkeys.s3.pages import install_fast_pages, remove_fast_pages
from ulidkeys.s3.surveying import survey
from ulidkeys.s3.writing import PresignedUpload
from ulidkeys.survey.s3 import Survey

__all__ = [
    "MAX_KEYS",
    "MAX_KEY_BYTES",
    "MAX_SHARDS",
    "Bucket",
    "Checkpoint",
    "Consumption",
    "FileStore",
    "KeyLayout",
    "KeyParts",
    "LateArrival",
    "ListCall",
    "ListingSource",
    "MemoryStore",
    "PeriodFolder",
    "Plan",
    "PresignedUpload",
    "Results",
    "S3CheckpointStore",
    "Slice",
    "Stats",
    "Survey",
    "install_fast_pages",
    "is_directory_bucket",
    "plan_folders",
    "plan_window",
    "remove_fast_pages",
    "survey",
]
