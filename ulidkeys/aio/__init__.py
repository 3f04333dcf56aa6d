"""asyncio twins of :class:`~ulidkeys.s3.Bucket` and :class:`~ulidkeys.dynamodb.Table` on
aiobotocore clients: the same plans, exact windows, ``.stats`` and ``.cursor``, as ``async for``
iterators (:class:`AsyncResults`). Needs the optional extra ``ulidkeys[async]``.
"""

try:  # the one place that says which extra the asyncio part needs
    import aiobotocore  # noqa: F401
except ImportError as missing:
    raise ImportError(
        "ulidkeys.aio needs aiobotocore, which is not installed: pip install 'ulidkeys[async]'"
    ) from missing

from ulidkeys.aio.dynamodb import AsyncBatchWriter, AsyncQuerySource, AsyncTable, async_target
from ulidkeys.aio.s3 import AsyncBucket, AsyncListingSource
from ulidkeys.engine.chains import AsyncPageSource
from ulidkeys.engine.tasks import AsyncResults

__all__ = [
    "AsyncBatchWriter",
    "AsyncBucket",
    "AsyncListingSource",
    "AsyncPageSource",
    "AsyncQuerySource",
    "AsyncResults",
    "AsyncTable",
    "async_target",
]
