"""asyncio twins of :class:`~ulidkeys.s3.Bucket` and :class:`~ulidkeys.dynamodb.Table` on
aiobotocore clients: the same plans, exact windows, ``.stats`` and ``.cursor``, as ``async for``
iterators. Needs the optional extra ``ulidkeys[async]``. What it offers:

- :class:`AsyncBucket` and :class:`AsyncTable`: the bound objects, their methods those of
  ``Bucket`` and ``Table`` (plans are made by the same code, without awaiting);
- what they return: :class:`AsyncResults` (``async for``, ``.stats``, ``.cursor``),
  :class:`AsyncConsumption` (an awaited ``consume``: ``async for``, then ``await
  run.commit()``) and :class:`AsyncBatchWriter` (``async with table.batch_writer()``).
"""

try:  # the one place that says which extra the asyncio part needs
    import aiobotocore  # noqa: F401
except ImportError as missing:
    raise ImportError(
        "ulidkeys.aio needs aiobotocore, which is not installed: pip install 'ulidkeys[async]'"
    ) from missing

from ulidkeys.aio.dynamodb import AsyncBatchWriter, AsyncTable
from ulidkeys.aio.s3 import AsyncBucket
from ulidkeys.engine.tasks import AsyncConsumption, AsyncResults

__all__ = [
    "AsyncBatchWriter",
    "AsyncBucket",
    "AsyncConsumption",
    "AsyncResults",
    "AsyncTable",
]
