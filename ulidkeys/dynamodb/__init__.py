"""DynamoDB keys and exact time-window queries for single-table designs.

Declare an :class:`Entity` once (``pk="Org#{org}"``, ``sk="Post#{id}"``); keys, parsing, key
conditions, query plans and writes derive from it. Needs ``boto3`` only to talk to AWS.
"""

from ulidkeys.dynamodb.buckets import Bucketing
from ulidkeys.dynamodb.entity import Entity, Index
from ulidkeys.dynamodb.plan import QueryCall, QueryPlan, plan_latest, plan_window
from ulidkeys.dynamodb.query import PageStats, QueryStats, run_plan
from ulidkeys.dynamodb.sortkeys import MAX_SORT_KEY_BYTES, key_before
from ulidkeys.dynamodb.template import KeySchema, KeyTemplate
from ulidkeys.dynamodb.write import BatchWriter, put_new

__all__ = [
    "MAX_SORT_KEY_BYTES",
    "BatchWriter",
    "Bucketing",
    "Entity",
    "Index",
    "KeySchema",
    "KeyTemplate",
    "PageStats",
    "QueryCall",
    "QueryPlan",
    "QueryStats",
    "key_before",
    "plan_latest",
    "plan_window",
    "put_new",
    "run_plan",
]
