"""Keys DynamoDB would refuse are refused when they are built: a partition key over 2,048 and a
sort key over 1,024 UTF-8 bytes, of the table and of every index, naming the attribute. At the
limits, moto (which enforces the same sizes) stores the item."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity, Index, Table
from ulidkeys.errors import InvalidKeyField
from ulidkeys.planning.keyschemas import MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES

COMMENT = Entity(
    pk="Org#{org}",
    sk="Post#{post}#Comment#{id}",
    gsi={"GSI1": Index(pk="Author#{author}", sk="Comment#{id}#{post}")},
)
SK_FIXED = len("Post##Comment#") + 26  # the sort key around {post}
PK_FIXED = len("Org#")


def test_the_issues_keys_are_refused_naming_the_attribute() -> None:
    with pytest.raises(InvalidKeyField, match=r"sort key SK=.* is 1140 bytes .* at most 1024"):
        Entity(pk="Org#{org}", sk="Post#{post}#Comment#{id}").keys(org="acme", post="x" * 1100)
    with pytest.raises(InvalidKeyField, match=r"partition key PK=.* 2104 bytes .* at most 2048"):
        Entity(pk="Org#{org}", sk="Post#{id}").keys(org="x" * 2100)


def test_bytes_not_characters_count() -> None:
    fits = "é" * ((MAX_SORT_KEY_BYTES - SK_FIXED) // 2)  # two bytes each
    assert len(COMMENT.keys(org="a", author="b", post=fits)["SK"].encode()) <= MAX_SORT_KEY_BYTES
    with pytest.raises(InvalidKeyField, match="sort key SK"):
        COMMENT.keys(org="a", author="b", post=fits + "é")


def test_index_keys_are_held_to_the_same_limits() -> None:
    author = "x" * (MAX_PARTITION_KEY_BYTES - len("Author#") + 1)
    with pytest.raises(InvalidKeyField, match=r"partition key GSI1PK=.* of the index GSI1"):
        COMMENT.keys(org="a", author=author, post="p")


def test_at_the_limits_dynamodb_stores_the_item_and_just_above_refuses_it() -> None:
    org = "o" * (MAX_PARTITION_KEY_BYTES - PK_FIXED)
    post = "p" * (MAX_SORT_KEY_BYTES - SK_FIXED)
    entity = Entity(pk="Org#{org}", sk="Post#{post}#Comment#{id}")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, "sizes")
        table = Table(boto3.resource("dynamodb", region_name="us-east-1").Table("sizes"), entity)
        keys = entity.keys(org=org, post=post)
        assert len(keys["PK"]) == MAX_PARTITION_KEY_BYTES and len(keys["SK"]) == MAX_SORT_KEY_BYTES
        table.put_new({**keys, "body": "at the limit"})
        stored = client.get_item(
            TableName="sizes", Key={"PK": {"S": keys["PK"]}, "SK": {"S": keys["SK"]}}
        )
        assert stored["Item"]["body"] == {"S": "at the limit"}
        too_long = {"PK": {"S": keys["PK"]}, "SK": {"S": keys["SK"] + "x"}}
        with pytest.raises(client.exceptions.ClientError, match="ValidationException"):
            client.put_item(TableName="sizes", Item=too_long)
        with pytest.raises(InvalidKeyField, match="1025 bytes"):
            entity.keys(org=org, post=post + "p")
