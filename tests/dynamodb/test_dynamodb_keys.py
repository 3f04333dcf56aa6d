"""Pure parts of ulidkeys.dynamodb: templates, entity keys and parsing, the exact upper
bound, time partitions and printable plans (no AWS)."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone

import boto3
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from periodsupport import periods

import ulidkeys
from ulidkeys.dynamodb import Entity, Index, Table, key_before, key_condition
from ulidkeys.errors import (
    InvalidKeyField,
    InvalidKeyTemplate,
    InvalidLayout,
    InvalidQuery,
    InvalidType,
    InvalidValue,
    KeyMismatch,
    TimeOutOfRange,
)
from ulidkeys.ids import TWITTER_SNOWFLAKE, UUID7
from ulidkeys.planning.entity import PAST_ALL_KEYS
from ulidkeys.planning.layout import MAX_SHARDS
from ulidkeys.planning.periods import PARTITION_LIMIT_MS, PERIOD_NAMES, Period
from ulidkeys.planning.queries import QueryWindow, plan_query
from ulidkeys.planning.sortkeys import key_after, largest_fill, utf8_len
from ulidkeys.planning.templates import KeyTemplate
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import to_ms
from ulidkeys.ulid import ULID

POST = Entity(
    pk="Org#{org}",
    sk="Post#{id}",
    gsi={
        "GSI1": Index(pk="User#{author}", sk="Post#{id}"),
        "ByTag": Index(pk="Tag#{tag}", sk="{id}", pk_attr="tpk", sk_attr="tsk", sparse=True),
    },
)
field_text = st.text(  # what a key field may hold: no separator, nothing invisible
    st.characters(blacklist_characters="#", blacklist_categories=["Cs", "Cc", "Cf", "Zl", "Zp"]),
    min_size=1,
)


def bound(entity: Entity) -> Table:
    """``entity`` bound to a plain client (no request is sent by the tests that use it)."""
    return Table(boto3.client("dynamodb", region_name="us-east-1"), entity, table_name="app")


def test_keys_make_a_fresh_ulid_and_every_index_key() -> None:
    before = ulidkeys.timeinput.now_ms()
    first, second = POST.keys(org="acme", author="bob"), POST.keys(org="acme", author="bob")
    assert first["PK"] == "Org#acme" and first["GSI1PK"] == "User#bob"
    assert first["SK"] != second["SK"] and first["SK"] == first["GSI1SK"]
    ulid = ULID.parse(first["SK"].removeprefix("Post#"))
    assert before <= ulid.timestamp_ms <= ulidkeys.timeinput.now_ms()
    assert "tpk" not in first  # sparse index without its field
    tagged = POST.keys(org="acme", author="bob", tag="news", id=ulid)
    assert tagged["tpk"] == "Tag#news" and tagged["tsk"] == str(ulid)


@given(org=field_text, author=field_text, ulid=st.integers(0, 2**128 - 1).map(ULID.from_int))
def test_parse_gives_back_the_fields(org: str, author: str, ulid: ULID) -> None:
    keys = POST.keys(org=org, author=author, id=str(ulid).lower())
    assert keys["SK"] == f"Post#{ulid}"  # canonical uppercase in the key
    assert POST.parse(keys) == {"org": org, "author": author, "id": str(ulid)}
    assert POST.parse({"PK": {"S": keys["PK"]}, "SK": {"S": keys["SK"]}})["id"] == str(ulid)
    assert POST.keys(org=org, author=author, id=ulid) == keys  # a ULID object is the same id


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"org": "a#b"}, "separator"),
        ({"org": ""}, "empty"),
        ({"org": None}, "type"),
        ({"org": 1.5}, "type"),
        ({"org": True}, "type"),
        ({"org": "a", "id": "nope"}, "ULID"),
        ({"org": "a", "colour": "red"}, "not a field"),
    ],
)
def test_bad_field_values_are_rejected(fields: dict[str, object], match: str) -> None:
    with pytest.raises(InvalidKeyField, match=match):
        POST.keys(author="bob", **fields)


def test_missing_fields_are_named() -> None:
    with pytest.raises(InvalidKeyField, match="author"):
        POST.keys(org="acme")
    assert POST.key(org="acme", id=ULID.min_for(0)) == {
        "PK": "Org#acme",
        "SK": "Post#00000000000000000000000000",
    }


def test_int_fields_and_custom_names_and_separator() -> None:
    entity = Entity(pk="t|{tenant}", sk="order|{id}|v0", pk_attr="pk", sk_attr="sk", separator="|")
    keys = entity.keys(tenant=42)
    assert set(keys) == {"pk", "sk"} and keys["pk"] == "t|42" and keys["sk"].endswith("|v0")
    assert entity.parse(keys)["tenant"] == "42"
    assert entity.keys(tenant="a#b")["pk"] == "t|a#b"  # '#' is not this entity's separator
    with pytest.raises(InvalidKeyField, match="separator"):
        entity.keys(tenant="a|b")


@pytest.mark.parametrize(
    ("pk", "sk", "options", "match"),
    [
        ("Org#{org}", "Post{id}", {}, "between separators"),
        ("Org#{org}{x}", "Post#{id}", {}, "between separators"),
        ("Org#{org", "Post#{id}", {}, "brace"),
        ("Org#{org}", "Post#{id}#{id}", {}, "repeats"),
        ("Org#{org}", "Post#{bucket}#{id}", {"bucket": "day"}, "partition key"),
        ("Org#{org}#{bucket}", "Post#{id}", {}, "go together"),
        ("Org#{org}", "Post#{id}", {"shards": 4}, "go together"),
        ("Org#{org}", "Post#{key}", {}, "id field"),
        ("Org#{org}#{bucket}", "Post#{id}", {"bucket": "fortnight"}, "is not a period; use one"),
        ("", "Post#{id}", {}, "non-empty"),
        ("Org#{org}", "Post#{id}", {"numeric_sk": True}, "numeric_sk"),  # not sk="{id}"
        ("Org#{org}", "{id}", {"numeric_sk": True}, "numeric id scheme"),  # ULIDs are not
    ],
)
def test_bad_templates_are_rejected(
    pk: str, sk: str, options: dict[str, object], match: str
) -> None:
    with pytest.raises(InvalidKeyTemplate, match=match):
        Entity(pk=pk, sk=sk, **options)  # type: ignore[arg-type]


def test_bad_shard_counts_and_schemes_are_rejected() -> None:
    with pytest.raises(InvalidKeyTemplate, match=r"shards=0 is out of range: it must be 1 \.\. "):
        Entity(pk="Org#{org}#{shard}", sk="Post#{id}", shards=0)
    with pytest.raises(InvalidType, match="shards"):
        Entity(pk="Org#{org}#{shard}", sk="Post#{id}", shards="3")  # type: ignore[arg-type]
    with pytest.raises(InvalidType, match="shards"):
        Entity(pk="Org#{org}#{shard}", sk="Post#{id}", shards=True)  # type: ignore[arg-type]
    with pytest.raises(InvalidType, match="id scheme"):
        Entity(pk="Org#{org}", sk="Post#{id}", scheme="ulid")  # type: ignore[arg-type]


def test_shard_counts_have_a_layouts_upper_limit() -> None:
    """``shards`` caps at :data:`MAX_SHARDS` (1,000) as ``KeyLayout``'s does (every window is
    queried once per shard), with the same message; it had no upper limit."""
    assert Entity(pk="Org#{org}#{shard}", sk="Post#{id}", shards=MAX_SHARDS).shards == 1000
    with pytest.raises(InvalidKeyTemplate) as refused:
        Entity(pk="Org#{org}#{shard}", sk="Post#{id}", shards=MAX_SHARDS + 1)
    with pytest.raises(InvalidLayout) as layouts:
        KeyLayout(shards=MAX_SHARDS + 1)
    said = "shards=1001 is out of range: it must be 1 .. 1000; shards=None means no "
    assert str(refused.value).startswith(said) and str(layouts.value).startswith(said)
    assert isinstance(refused.value, InvalidValue) and "{shard}" in str(refused.value)


@pytest.mark.parametrize(
    "item",
    [
        {
            "PK": "Org#acme",
            "SK": "Post#01HX5Q3T8R6K2M9N4P7W1Y3ZBC#Comment#01HX5Q3T8R6K2M9N4P7W1Y3ZBD",
        },
        {"PK": "Org#acme", "SK": "Post#01hx5q3t8r6k2m9n4p7w1y3zbc"},  # not canonical
        {"PK": "User#acme", "SK": "Post#01HX5Q3T8R6K2M9N4P7W1Y3ZBC"},
        {"PK": "Org#acme"},
        {
            "PK": "Org#acme",
            "SK": "Post#01HX5Q3T8R6K2M9N4P7W1Y3ZBC",
            "GSI1PK": "User#bob",
            "GSI1SK": "Post#01HX5Q3T8R6K2M9N4P7W1Y3ZBD",  # disagrees with SK
        },
    ],
)
def test_items_that_do_not_fit_are_rejected(item: dict[str, str]) -> None:
    with pytest.raises(KeyMismatch):
        POST.parse(item)


def test_other_schemes_and_number_sort_keys() -> None:
    """An entity of another scheme matches only that scheme's canonical text; with
    ``numeric_sk`` its sort key is the id's number, and the table a DynamoDB Number key."""
    event = Entity(pk="Org#{org}", sk="Event#{id}", scheme=UUID7)
    keys = event.keys(org="acme")
    assert UUID7.parse(keys["SK"].removeprefix("Event#")) == keys["SK"][6:]
    assert event.parse(keys)["id"] == keys["SK"][6:]
    with pytest.raises(KeyMismatch):
        event.parse({"PK": "Org#acme", "SK": keys["SK"].upper()})  # not canonical
    with pytest.raises(InvalidKeyField, match="uuid7"):
        event.keys(org="acme", id=str(ULID.new()))

    tweet = Entity(pk="User#{user}", sk="{id}", scheme=TWITTER_SNOWFLAKE, numeric_sk=True)
    snowflake = TWITTER_SNOWFLAKE.min_for(1_700_000_000_000)
    number = TWITTER_SNOWFLAKE.to_int(snowflake)
    assert tweet.key(user="u", id=snowflake) == {"PK": "User#u", "SK": number}
    assert tweet.key(user="u", id=number) == tweet.key(user="u", id=str(number))  # unpadded too
    assert tweet.parse({"PK": "User#u", "SK": number})["id"] == snowflake
    assert tweet.parse({"PK": {"S": "User#u"}, "SK": {"N": str(number)}})["id"] == snowflake
    with pytest.raises(KeyMismatch):
        tweet.parse({"PK": "User#u", "SK": str(number)})  # a string is not the Number key
    definition = tweet.table_definition("tweets")
    assert {a["AttributeName"]: a["AttributeType"] for a in definition["AttributeDefinitions"]} == {
        "PK": "S",
        "SK": "N",
    }
    plan = tweet.plan_window(1_700_000_000_000, 1_700_000_000_010, user="u")
    (call,) = plan.calls
    assert call.lo == number and call.hi_inclusive == call.hi - 1
    assert call.hi == TWITTER_SNOWFLAKE.to_int(TWITTER_SNOWFLAKE.min_for(1_700_000_000_010))
    typed = call.request("tweets")["ExpressionAttributeValues"]
    assert typed[":lo"] == {"N": str(number)} and typed[":pk"] == {"S": "User#u"}


# --- the exact inclusive upper bound -------------------------------------------------------

chars = st.sampled_from(["\x00", "/", "0", "1", "Z", "\x7f", "é", "\u07ff", "\uffff", "\U0010ffff"])
small_text = st.text(chars, max_size=6)


@given(key=small_text.filter(bool), tail=small_text, cut=st.integers(0, 6))
def test_key_before_is_the_largest_key_below(key: str, tail: str, cut: int) -> None:
    """For every key of at most ``limit`` bytes: ``x <= key_before(k)`` exactly when ``x < k``
    (compared as UTF-8 bytes, as DynamoDB does)."""
    limit = 16
    assume(utf8_len(key) <= limit)
    bound = key_before(key, limit)
    assert utf8_len(bound) <= limit and bound.encode() < key.encode()
    candidate = key[:cut] + tail  # near the key: shares a prefix with it
    if utf8_len(candidate) <= limit:
        encoded = candidate.encode()
        assert (encoded <= bound.encode()) == (encoded < key.encode())
        assert (candidate <= bound) == (candidate < key)  # str order == UTF-8 byte order


@given(key=small_text, tail=small_text, cut=st.integers(0, 6))
def test_key_after_is_the_smallest_key_above(key: str, tail: str, cut: int) -> None:
    """The mirror of key_before: ``x >= key_after(k)`` exactly when ``x > k``, also for keys
    that already use every byte of the limit."""
    limit = 16
    assume(utf8_len(key) <= limit)
    bound = key_after(key, limit)
    assert utf8_len(bound) <= limit and bound.encode() > key.encode()
    candidate = key[:cut] + tail
    if utf8_len(candidate) <= limit:
        encoded = candidate.encode()
        assert (encoded >= bound.encode()) == (encoded > key.encode())
    assert key_after("a\x7f", 2) == "b"  # U+0080 would need a third byte
    with pytest.raises(InvalidKeyField, match="sorts after"):
        key_after("\U0010ffff", 4)


def test_key_before_a_window_end_and_its_limits() -> None:
    hi = "Post#01HX5Q3T8R0000000000000000"
    bound = key_before(hi)
    assert bound.startswith("Post#01HX5Q3T8R000000000000000/")
    assert utf8_len(bound) == 1024
    child = "Post#01HX5Q3T8QZZZZZZZZZZZZZZZZ#Comment#" + "Z" * 900
    assert child < bound < hi
    assert largest_fill(7) == "\U0010ffff\uffff"
    with pytest.raises(InvalidKeyField, match="1024 bytes"):
        key_before("P" * 1025)
    with pytest.raises(InvalidKeyField):
        key_before("")
    assert key_before("a\x00", 8) == "a"


# --- time partitions (buckets) -------------------------------------------------------------


@given(
    size=periods,
    start=st.integers(0, 2**41),
    width=st.integers(0, 400 * 86_400_000),
)
def test_bucket_spans_partition_the_window(size: str, start: int, width: int) -> None:
    period = Period(size)
    spans = list(period.spans(start, start + width))
    if width == 0:
        assert spans == []
        return
    assert spans[0][0] <= start < spans[0][1] and spans[-1][0] < start + width <= spans[-1][1]
    for (first, end), following in zip(spans, [*spans[1:], None], strict=True):
        assert period.label(first) == period.label(end - 1)
        assert end - 1 < first or period.floor(end - 1) == first
        assert period.parse_label(period.label(first)) == first
        if following is not None:
            # labels sort like time
            assert following[0] == end and period.label(following[0]) > period.label(first)


def test_bucket_labels() -> None:
    moment = to_ms(datetime(2024, 12, 31, 23, 59, tzinfo=timezone.utc))
    assert Period("hour").label(moment) == "2024-12-31T23"
    assert Period("month").next(Period("month").floor(moment)) == to_ms("2025-01-01T00:00:00Z")


@pytest.mark.parametrize("size", PERIOD_NAMES)
def test_buckets_end_with_the_last_four_digit_year(size: str) -> None:
    """Buckets (like S3 partition folders) end at 10000-01-01: the last one is labelled with
    year 9999, a window past it is clipped, and a later time has no bucket."""
    period = Period(size)
    last = PARTITION_LIMIT_MS - 1
    assert period.label(last).startswith("9999") and period.next(last) == PARTITION_LIMIT_MS
    spans = list(period.spans(last, 2**48))
    assert spans == [(period.floor(last), PARTITION_LIMIT_MS)]
    assert list(period.spans(PARTITION_LIMIT_MS, 2**48)) == []
    assert list(period.spans(-(10**12), 10)) == [(0, period.next(0))]  # nor before 1970
    assert list(period.spans(-(10**12), 0)) == []
    with pytest.raises(TimeOutOfRange):
        period.label(PARTITION_LIMIT_MS)
    entity = Entity(pk="Org#{org}#{bucket}", sk="Post#{id}", bucket=size)
    with pytest.raises(TimeOutOfRange):
        entity.keys(org="a", id=ULID.min_for(PARTITION_LIMIT_MS))
    assert entity.keys(org="a", id=ULID.max_for(last))["PK"] == f"Org#a#{period.label(last)}"
    plan = entity.plan_window(last, 2**48 - 1, org="a")
    (call,) = plan.calls
    assert call.partition == f"Org#a#{period.label(last)}"
    assert call.hi == "Post#" + str(ULID.min_for(PARTITION_LIMIT_MS))
    early = plan_query(entity, QueryWindow(-(10**12), 10, fields={"org": "a"}))  # pure: any ms
    assert [c.partition for c in early.calls] == [f"Org#a#{period.label(0)}"]


# --- plans ---------------------------------------------------------------------------------

HOT = Entity(pk="Org#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="day", shards=3)


def test_plans_print_one_line_per_call() -> None:
    plan = HOT.plan_window("2024-05-01T12:00:00Z", "2024-05-03T12:00:00Z", org="acme")
    head, *lines = plan.explain().splitlines()
    assert len(lines) == len(plan.calls) == 9  # 3 days x 3 shards
    assert "9 call chain(s)" in head and "oldest first" in head
    assert lines[0].startswith("  1. Query table: PK = 'Org#acme#2024-05-01#0' AND SK BETWEEN")
    assert [line.split(". ", 1)[1] for line in lines] == [c.explain() for c in plan.calls]
    assert str(plan) == plan.explain()
    newest = HOT.plan_window(
        "2024-05-01T12:00Z", "2024-05-03T12:00Z", newest_first=True, org="acme"
    )
    assert newest.calls[0].partition == "Org#acme#2024-05-03#0"
    one = POST.plan_window(0, 1000, index="GSI1", author="bob")
    (line,) = one.explain().splitlines()[1:]
    assert "index=GSI1" in line
    empty = POST.plan_window(1000, 1000, org="a")
    assert empty.is_empty and empty.calls == () and "no calls" in empty.explain()
    assert POST.plan_window(0, 1000, limit=0, org="a").is_empty


def test_bucket_edges_clip_the_sort_key_range() -> None:
    org = {"org": "acme"}
    plan = HOT.plan_window("2024-05-01T12:00:00Z", "2024-05-02T00:00:00Z", **org)
    assert {call.partition for call in plan.calls} == {f"Org#acme#2024-05-01#{n}" for n in "012"}
    exact = HOT.plan_window("2024-05-01T00:00:00Z", "2024-05-02T00:00:00.001Z", **org)
    assert [group[0].partition for group in exact.groups] == [
        "Org#acme#2024-05-01#0",
        "Org#acme#2024-05-02#0",
    ]
    last = exact.groups[-1][0]
    assert last.lo == "Post#" + str(ULID.min_for("2024-05-02T00:00:00Z"))
    assert last.hi == "Post#" + str(ULID.min_for("2024-05-02T00:00:00.001Z"))


def test_single_call_helpers_refuse_fan_out() -> None:
    hot = bound(HOT)
    with pytest.raises(InvalidQuery, match="partitions"):
        hot.query_args("2024-05-01T00:00Z", "2024-05-01T01:00Z", org="acme")
    with pytest.raises(InvalidQuery, match="partitions"):
        key_condition(HOT, "2024-05-01T00:00Z", "2024-05-01T01:00Z", org="acme")
    args = hot.query_args(
        "2024-05-01T00:00Z", "2024-05-01T01:00Z", org="acme", bucket="2024-05-01", shard=2
    )
    assert args["ExpressionAttributeValues"][":pk"] == {"S": "Org#acme#2024-05-01#2"}
    assert args["TableName"] == "app"
    with pytest.raises(InvalidQuery, match="since"):
        hot.latest(5, org="acme")
    with pytest.raises(InvalidValue, match="limit"):
        POST.plan_window(0, 10, limit=-1, org="a")
    with pytest.raises(InvalidQuery, match="narrower"):
        Entity(pk="O#{org}#{bucket}", sk="P#{id}", bucket="hour").plan_window(0, 2**40, org="a")


def test_key_template_renders_and_matches() -> None:
    template = KeyTemplate("Post#{post}#Comment#{id}")
    values = {"post": "p1", "id": "01HX5Q3T8R6K2M9N4P7W1Y3ZBC"}
    key = template.render(values)
    assert key == "Post#p1#Comment#01HX5Q3T8R6K2M9N4P7W1Y3ZBC"
    assert template.match(key) == values
    assert template.match(key + "#Reply#x") is None
    assert template.prefix_before("id", values) == "Post#p1#Comment#"
    assert template.fields_before("id") == ("post",)


def test_after_accepts_items_keys_and_ulids() -> None:
    ulid = ULID.new()
    keys = POST.keys(org="acme", author="bob", id=ulid)
    assert POST.id_of(keys, index="GSI1") == str(ulid)
    table_key = {"PK": keys["PK"], "SK": keys["SK"]}  # no GSI keys: the table's SK is used
    assert POST.id_of(table_key, index="GSI1") == POST.id_of(str(ulid).lower()) == str(ulid)
    assert POST.id_of(ulid) == str(ulid)
    # an item or key resumes past its own sort key (of the index queried, else the table's,
    # then past every key of its id); a bare id past every key of that id
    assert POST.position_of(keys, POST.schema("GSI1")) == (str(ulid), keys["GSI1SK"])
    assert POST.position_of(table_key, POST.schema("GSI1")) == (str(ulid), PAST_ALL_KEYS)
    assert POST.position_of(ulid, POST.table) == (str(ulid), PAST_ALL_KEYS)
    doc = Entity(pk="Org#{org}", sk="Doc#{id}#{lang}")
    doc_keys = doc.keys(org="acme", id=ulid, lang="en")
    assert doc.position_of(doc_keys, doc.table) == (str(ulid), f"Doc#{ulid}#en")
    tweet = Entity(pk="U#{user}", sk="{id}", scheme=TWITTER_SNOWFLAKE, numeric_sk=True)
    snowflake = TWITTER_SNOWFLAKE.min_for(1_700_000_000_000)
    number = TWITTER_SNOWFLAKE.to_int(snowflake)
    assert tweet.id_of(number) == tweet.id_of({"SK": number}) == snowflake
    with pytest.raises(KeyMismatch):
        POST.id_of({"SK": "Comment#1"})
    with pytest.raises(InvalidKeyField):
        POST.id_of(3.5)
    org = {"org": "acme"}
    newest = POST.plan_window(0, 2**47, newest_first=True, after=ulid, **org).calls[0]
    assert newest.hi == f"Post#{ulid}" and newest.lo == "Post#" + str(ULID.min_for(0))
    oldest = POST.plan_window(0, 2**47, after=ulid, **org).calls[0]
    # past the ULID and every key that continues it (its children), up to the next ULID
    child = f"Post#{ulid}#Comment#" + "\U0010ffff" * 200
    assert child < oldest.lo <= f"Post#{ULID.from_int(ulid.int + 1)}"
    assert oldest.hi == "Post#" + str(ULID.min_for(2**47))


def test_buckets_in_an_index_partition_key() -> None:
    feed = Entity(
        pk="Org#{org}",
        sk="Post#{id}",
        gsi={"Feed": Index(pk="Feed#{bucket}", sk="{org}#{id}")},
        bucket="day",
    )
    ulid = ULID.min_for("2024-05-01T23:59:59.999Z")
    keys = feed.keys(org="acme", id=ulid)
    assert keys["FeedPK"] == "Feed#2024-05-01" and keys["FeedSK"] == f"acme#{ulid}"
    assert keys["PK"] == "Org#acme"  # the table itself is not bucketed
    window = ("2024-05-01T12:00Z", "2024-05-03T00:00Z")
    plan = feed.plan_window(*window, index="Feed", org="acme")
    assert [c.partition for c in plan.calls] == ["Feed#2024-05-01", "Feed#2024-05-02"]
    assert all(c.lo.startswith("acme#") and c.index == "Feed" for c in plan.calls)
    assert len(feed.plan_window(*window, org="acme").calls) == 1
    with pytest.raises(KeyMismatch, match="bucket"):
        feed.parse({**keys, "FeedPK": "Feed#2024-05-02"})


def test_keys_and_plans_need_no_boto3() -> None:
    """Only the adapter touches boto3; keys, parsing and plans work without it installed."""
    code = (
        "import sys; sys.modules['boto3'] = sys.modules['botocore'] = None\n"
        "from ulidkeys.dynamodb import Entity\n"
        "e = Entity(pk='Org#{org}', sk='Post#{id}')\n"
        "assert e.parse(e.keys(org='a'))['org'] == 'a'\n"
        "print(e.plan_window(0, 10, org='a'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "\n  1. Query table: PK = 'Org#a' AND SK BETWEEN" in result.stdout


def test_table_definition_creates_a_table_the_entity_can_use() -> None:
    from moto import mock_aws

    post = Entity(
        pk="Org#{org}",
        sk="Post#{id}",
        pk_attr="pk",
        sk_attr="sk",
        gsi={"ByAuthor": Index(pk="User#{author}", sk="Post#{id}")},
    )
    definition = post.table_definition("app")
    assert definition["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert [a["AttributeName"] for a in definition["AttributeDefinitions"]] == [
        "pk",
        "sk",
        "ByAuthorPK",
        "ByAuthorSK",
    ]
    assert {a["AttributeType"] for a in definition["AttributeDefinitions"]} == {"S"}
    with mock_aws():
        table = boto3.resource("dynamodb", region_name="us-east-1").create_table(**definition)
        posts = Table(table, post)
        keys = post.keys(org="acme", author="bob")
        posts.put_new({**keys, "title": "hi"})
        found = list(posts.query_window(0, "now", index="ByAuthor", author="bob"))
        assert [item["title"] for item in found] == ["hi"]
