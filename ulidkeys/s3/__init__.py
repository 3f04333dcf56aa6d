"""Ids as keys on Amazon S3: key layouts, exact time-window listings, safe uploads.

``KeyLayout`` (pure) describes keys and makes plans; ``Bucket`` binds a layout to a client
and a bucket name and runs them. Importing this package does not import boto3. What it offers:

- keys: :class:`KeyLayout` (builds, parses and plans keys), :class:`KeyParts` (a parsed key);
- a bucket: :class:`Bucket` (windows, newest first, uploads, consumers, period folders),
  :class:`PresignedUpload` (what ``Bucket.presigned_put``/``presigned_post`` hand out),
  :class:`PeriodFolder` (what ``Bucket.periods`` finds);
- plans and results, shared with ``ulidkeys.dynamodb`` and documented here once:
  :class:`Plan` (plain data, ``.explain()``, ``.slices(n)``) of :class:`ListCall` calls,
  :class:`Slice` (one worker's piece of a window), :class:`Results` (an iterator with
  ``.stats`` and ``.cursor``), :class:`Stats`;
- consumers (what is new since the last run), shared with ``ulidkeys.dynamodb`` too:
  :class:`Consumption` (what ``consume`` returns), :class:`Checkpoint`, the stores
  :class:`S3CheckpointStore`, :class:`MemoryStore` and :class:`FileStore`, and
  :class:`LateArrival` (what ``on_late=`` hears of);
- what a prefix holds: :func:`survey` and its :class:`Survey`, whose counts are a
  :class:`Count` (exact, a range, or unknown; ``ulidkeys.dynamodb``'s survey counts alike);
- the fast page reader on any client: :func:`install_fast_pages`, :func:`remove_fast_pages`.
"""

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.consuming import FileStore, LateArrival, MemoryStore
from ulidkeys.engine.threads import Consumption, Results
from ulidkeys.planning.checkpoints import Checkpoint
from ulidkeys.planning.layout import KeyLayout, KeyParts
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.periods import PeriodFolder
from ulidkeys.planning.plans import Plan, Slice
from ulidkeys.s3.bucket import Bucket
from ulidkeys.s3.checkpoints import S3CheckpointStore
from ulidkeys.s3.pages import install_fast_pages, remove_fast_pages
from ulidkeys.s3.surveying import survey
from ulidkeys.s3.writing import PresignedUpload
from ulidkeys.survey.counts import Count
from ulidkeys.survey.s3 import Survey

__all__ = [
    "Bucket",
    "Checkpoint",
    "Consumption",
    "Count",
    "FileStore",
    "KeyLayout",
    "KeyParts",
    "LateArrival",
    "ListCall",
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
    "remove_fast_pages",
    "survey",
]
