"""``ulidkeys.pynamodb`` against the real PynamoDB on moto: the IdAttribute stores ids inside
its template and reads them back; ``window_condition`` is the exact half-open range; and
``query_window`` yields exactly the window's model instances (children read past), both ways,
with limits and cursors that resume without loss or repeats - all against brute force."""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterator

import boto3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from ulidkeys import ULID
from ulidkeys.dynamodb import Collection, Entity
from ulidkeys.errors import (
    InvalidCursor,
    InvalidKeyTemplate,
    InvalidType,
    InvalidValue,
    InvalidWindow,
)
from ulidkeys.ids import KSUID
from ulidkeys.pynamodb import IdAttribute, query_window, window_condition

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000


class Post(Model):
    class Meta:
        table_name = "pynamodb-posts"
        region = "us-east-1"

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = IdAttribute(template="Post#{id}", range_key=True, attr_name="SK")
    n = NumberAttribute(default=0)


class Event(Model):
    class Meta:
        table_name = "pynamodb-events"
        region = "us-east-1"

    pk = UnicodeAttribute(hash_key=True)
    id = IdAttribute(scheme="ksuid", range_key=True)


_partitions = itertools.count()


@pytest.fixture(scope="module", autouse=True)
def tables() -> Iterator[None]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "testing")
    with mock_aws():
        for model in (Post, Event):
            model.create_table(billing_mode="PAY_PER_REQUEST", wait=True)
        yield


def fill(n: int, seed: int) -> tuple[str, list[ULID]]:
    """A fresh partition: posts at random times (some at whole hours: the window bounds), each
    third with a comment child, which a window query must read past."""
    partition = f"Org#p{next(_partitions)}"
    rng = random.Random(seed)
    ids = []
    children = []
    with Post.batch_write() as batch:
        for index in range(n):
            ms = T0 + (rng.randrange(6) * HOUR if index % 4 == 0 else rng.randrange(6 * HOUR))
            post = ULID.from_int((ms << 80) | rng.getrandbits(80))
            ids.append(post)
            batch.save(Post(partition, post, n=index))
            if index % 3 == 0:  # a child key in the same range (another kind: written raw)
                children.append(f"Post#{post}#Comment#{ULID.new(T0)}")
    client = boto3.client("dynamodb", region_name="us-east-1")
    for key in children:
        client.put_item(TableName="pynamodb-posts", Item={"PK": {"S": partition}, "SK": {"S": key}})
    return partition, sorted(ids)


def test_the_attribute_stores_the_template_and_reads_the_id_back() -> None:
    partition = f"Org#p{next(_partitions)}"
    made = ULID.new(T0)
    Post(partition, str(made).lower(), n=1).save()  # any spelling the scheme reads
    item = Post.get(partition, made)
    assert item.sk == made and isinstance(item.sk, ULID)
    raw = Post._get_connection().get_item(partition, f"Post#{made}")["Item"]
    assert raw["SK"] == {"S": f"Post#{made}"}
    event = Event("e", "2gaWvi34Tn32hQMcnu9xrD2UlWf")
    event.save()
    assert Event.get("e", "2gaWvi34Tn32hQMcnu9xrD2UlWf").id == "2gaWvi34Tn32hQMcnu9xrD2UlWf"
    assert KSUID.parse(Event.get("e", "2gaWvi34Tn32hQMcnu9xrD2UlWf").id)


def test_bad_templates_and_values_are_refused() -> None:
    with pytest.raises(InvalidKeyTemplate):
        IdAttribute(template="Post#")
    with pytest.raises(InvalidKeyTemplate):
        IdAttribute(template="Post#{id}#{lang}")
    with pytest.raises(InvalidType):
        window_condition(UnicodeAttribute(), T0, T0 + HOUR)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Post("Org#x", "not an id").save()
    with pytest.raises(InvalidWindow):
        window_condition(Post.sk, T0, T0)


@pytest.mark.parametrize(
    ("page_size", "error"), [(0, InvalidValue), (-1, InvalidValue), (1.5, InvalidType)]
)
def test_a_page_size_below_one_is_refused_when_asked(page_size: object, error: type) -> None:
    """Refused by name at the call, before any request (PynamoDB's own answer to 0 was a bare
    IndexError at the first page)."""
    with pytest.raises(error, match="page_size"):
        query_window(Post, "Org#x", T0, T0 + HOUR, page_size=page_size)  # type: ignore[arg-type]


def test_window_condition_is_the_exact_half_open_range() -> None:
    condition = window_condition(Post.sk, T0, T0 + HOUR)
    names: dict[str, str] = {}
    values: dict[str, dict[str, str]] = {}
    text = condition.serialize(names, values)
    low, high = (value["S"] for value in values.values())
    assert text.startswith("#0 BETWEEN")
    assert low == f"Post#{ULID.min_for(T0)}" and high < f"Post#{ULID.min_for(T0 + HOUR)}"
    assert f"Post#{ULID.max_for(T0 + HOUR - 1)}#Comment#x" <= high  # children of the last ms


@settings(max_examples=examples(12), deadline=None)
@given(
    start=st.integers(0, 6).map(lambda h: T0 + h * HOUR) | st.integers(T0, T0 + 6 * HOUR),
    width=st.sampled_from([0, 1, HOUR, 2 * HOUR + 7, 7 * HOUR]),
    newest_first=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_query_window_is_exactly_the_window(
    start: int, width: int, newest_first: bool, seed: int
) -> None:
    partition, ids = fill(40, seed)
    end = start + width
    expected = [str(i) for i in ids if start <= i.timestamp_ms < end]
    if newest_first:
        expected.reverse()
    got = [
        str(item.sk)
        for item in query_window(Post, partition, start, end, newest_first=newest_first)
    ]
    assert got == expected


@pytest.mark.parametrize("newest_first", [False, True])
def test_limit_and_cursor_resume_without_loss_or_repeats(newest_first: bool) -> None:
    partition, ids = fill(60, seed=7)
    whole = [str(i) for i in ids if T0 <= i.timestamp_ms < T0 + 6 * HOUR]
    if newest_first:
        whole.reverse()
    seen: list[str] = []
    cursor = None
    for _ in range(30):
        page = query_window(
            Post,
            partition,
            None if cursor else T0,
            None if cursor else T0 + 6 * HOUR,
            newest_first=newest_first,
            limit=7,
            cursor=cursor,
        )
        got = [str(item.sk) for item in page]
        seen += got
        if len(got) < 7:
            break
        cursor = page.cursor
        assert cursor is not None
    assert seen == whole
    with pytest.raises(InvalidCursor):  # another direction
        list(query_window(Post, partition, newest_first=not newest_first, cursor=cursor))


def test_a_collection_or_several_models_are_refused_saying_what_reads_them() -> None:
    activity = Collection(
        Entity(pk="Org#{org}", sk="Post#{id}"), Entity(pk="Org#{org}", sk="Like#{id}")
    )
    for given_model in (activity, (Post, Post)):
        with pytest.raises(InvalidType, match=r"one PynamoDB model.*Collection"):
            query_window(given_model, "Org#acme")  # type: ignore[arg-type]
