"""Ids as keys on DynamoDB: exact time-window queries for single-table designs.

Declare an :class:`Entity` once (``pk="Org#{org}"``, ``sk="Post#{id}"``); keys, parsing and
query plans derive from it. :class:`Table` binds it to a client and runs them (boto3 is
needed only there); :class:`TicketServer` hands out Flickr-style ticket numbers.
"""

from ulidkeys.dynamodb.checkpoints import DynamoCheckpointStore
from ulidkeys.dynamodb.clients import Target, speaks_plain_values
from ulidkeys.dynamodb.pages import install_fast_pages, remove_fast_pages
from ulidkeys.dynamodb.surveying import survey
from ulidkeys.dynamodb.table import QuerySource, Table, key_condition
from ulidkeys.dynamodb.tickets import TicketServer
from ulidkeys.dynamodb.write import BATCH_SIZE, BatchWriter
from ulidkeys.engine.chains import Stats
from ulidkeys.engine.consuming import FileStore, LateArrival, MemoryStore
from ulidkeys.engine.threads import Consumption, Results
from ulidkeys.ids.tickets import TICKET, TicketSplit
from ulidkeys.planning.checkpoints import Checkpoint
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.keyschemas import Index
from ulidkeys.planning.periods import Period
from ulidkeys.planning.plans import Plan, Slice
from ulidkeys.planning.queries import QueryCall, plan_query, plan_window
from ulidkeys.planning.sortkeys import MAX_SORT_KEY_BYTES, key_after, key_before
from ulidkeys.planning.templates import KeySchema, KeyTemplate
from ulidkeys.survey.dynamodb import PartitionSurvey

__all__ = [
    "BATCH_SIZE",
    "MAX_SORT_KEY_BYTES",
    "TICKET",
    "BatchWriter",
    "Checkpoint",
    "Consumption",
    "DynamoCheckpointStore",
    "Entity",
    "FileStore",
    "Index",
    "KeySchema",
    "KeyTemplate",
    "LateArrival",
    "MemoryStore",
    "PartitionSurvey",
    "Period",
    "Plan",
    "QueryCall",
    "QuerySource",
    "Results",
    "Slice",
    "Stats",
    "Table",
    "Target",
    "TicketServer",
    "TicketSplit",
    "install_fast_pages",
    "key_after",
    "key_before",
    "key_condition",
    "plan_query",
    "plan_window",
    "remove_fast_pages",
    "speaks_plain_values",
    "survey",
]
