"""Ids as keys on DynamoDB: exact time-window queries for single-table designs.

Declare an :class:`Entity` once (``pk="Org#{org}"``, ``sk="Post#{id}"``); keys, parsing and
query plans derive from it. :class:`Table` binds it to a client and runs them (boto3 is
needed only there). What it offers:

- items: :class:`Entity` (keys, parsing, plans), :class:`Index` (a secondary index's keys),
  :class:`Collection` (several entities of one partition, read as one time-ordered stream);
- a table: :class:`Table` (window queries, newest first, safe writes, consumers),
  :class:`BatchWriter` (what ``Table.batch_writer`` returns), :class:`QueryCall` (one call of
  a plan), and for your own calls :func:`key_condition` and :func:`key_before` (the exact
  inclusive end of a half-open range);
- consumers: :class:`DynamoCheckpointStore` (the checkpoint in an item);
- ticket numbers (Flickr's ticket server): :class:`TicketServer`, the :data:`TICKET` scheme and
  :class:`TicketSplit` (which server owns which numbers);
- what a partition holds: :func:`survey` and its :class:`PartitionSurvey`;
- the fast page reader on any client: :func:`install_fast_pages`, :func:`remove_fast_pages`.

Plans, results, slices, consumer runs and the generic checkpoint stores are the same for both
services; their home is ``ulidkeys.s3`` (``Plan``, ``Results``, ``Stats``, ``Slice``,
``Consumption``, ``Checkpoint``, ``MemoryStore``, ``FileStore``, ``LateArrival``, ``Count``).
"""

from ulidkeys.dynamodb.checkpoints import DynamoCheckpointStore
from ulidkeys.dynamodb.pages import install_fast_pages, remove_fast_pages
from ulidkeys.dynamodb.surveying import survey
from ulidkeys.dynamodb.table import Table, key_condition
from ulidkeys.dynamodb.tickets import TicketServer
from ulidkeys.dynamodb.write import BatchWriter
from ulidkeys.ids.tickets import TICKET, TicketSplit
from ulidkeys.planning.collection import Collection
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.keyschemas import Index
from ulidkeys.planning.queries import QueryCall
from ulidkeys.planning.sortkeys import key_before
from ulidkeys.survey.dynamodb import PartitionSurvey

__all__ = [
    "TICKET",
    "BatchWriter",
    "Collection",
    "DynamoCheckpointStore",
    "Entity",
    "Index",
    "PartitionSurvey",
    "QueryCall",
    "Table",
    "TicketServer",
    "TicketSplit",
    "install_fast_pages",
    "key_before",
    "key_condition",
    "remove_fast_pages",
    "survey",
]
