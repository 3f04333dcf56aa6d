"""A table name DynamoDB cannot take is refused before any request, naming the rule: DynamoDB's
own refusal is a ValidationException, which the CLI (rightly, for a query) reads as key
attributes that do not match the table."""

from __future__ import annotations

import boto3
import pytest
from clisupport import refused
from moto import mock_aws

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.dynamodb.clients import check_table_name
from ulidkeys.errors import InvalidValue

POST = Entity(pk="Org#{org}", sk="Post#{id}")
ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/app.posts-2024_v1"


CHINA_ARN = "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/abc"


@pytest.mark.parametrize("name", ["app", "a_b", "A.b-c", "x" * 255, "123", ARN, CHINA_ARN])
def test_names_and_arns_dynamodb_takes(name: str) -> None:
    assert check_table_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "ab", "x" * 256, "a b", "app\n", "app/x", "äpp", "app#1", "tab\x00le", ARN + "/index/x",
     "arn:aws:dynamodb:eu-west-1:1234:table/app", "arn:aws:s3:::bucket"],
)  # fmt: skip
def test_names_dynamodb_refuses_are_refused_with_the_rule(name: str) -> None:
    with pytest.raises(InvalidValue, match="names no DynamoDB table: a table name is 3 to 255"):
        check_table_name(name)


def test_a_table_refuses_a_bad_name_before_any_request() -> None:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        with pytest.raises(InvalidValue, match=r"table_name='a b' names no DynamoDB table"):
            Table(client, POST, table_name="a b")


@pytest.mark.parametrize(
    "argv",
    [
        ["query", "--table", "a b", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "org=a",
         "--since", "2024-05-17T09:00:00Z", "--region", "us-east-1"],
        ["survey", "dynamodb://ab", "--pk", "Org#acme", "--region", "us-east-1"],
    ],
    ids=["query", "survey"],
)  # fmt: skip
def test_the_cli_says_it_in_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with mock_aws():
        err = refused(capsys, argv, "names no DynamoDB table")
    assert "pk-attr" not in err
