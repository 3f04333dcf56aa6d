"""Query plans: a time window -> the exact DynamoDB ``Query`` calls, as printable plain data.

Pure (no boto3 until a condition object is asked for). Each call selects ``lo <= SK < hi`` as
``BETWEEN lo AND key_before(hi)``; a plan groups calls by time bucket, in result order, and the
calls of one group (shards) are merged by sort key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ulidkeys import base32
from ulidkeys.dynamodb.sortkeys import key_after, key_before, show_key
from ulidkeys.dynamodb.template import BUCKET, SHARD, KeySchema, KeyTemplate
from ulidkeys.errors import InvalidQuery, InvalidValue, describe
from ulidkeys.timeinput import TimeInput, format_ms, now_ms, to_ms
from ulidkeys.timewindow import TimeWindow
from ulidkeys.ulid import MAX_ULID, ULID

if TYPE_CHECKING:
    from ulidkeys.dynamodb.entity import Entity

#: Most Query calls one plan may hold; a wider fan-out is almost surely a mistaken window.
MAX_CALLS = 10_000

# Id-space bounds: the text after the sort key prefix. "0" is below every ULID and "8" above
# every ULID (the first character of a ULID is 0-7), with or without a suffix after it.
_ALL_LO, _ALL_HI = "0", "8"
_ZEROS = "0" * base32.RANDOM_LENGTH


@dataclass(frozen=True)
class QueryCall:
    """One ``Query``: ``pk_attr = partition AND sk_attr BETWEEN lo AND key_before(hi)``."""

    partition: str
    lo: str  # inclusive
    hi: str  # exclusive: the half-open end the caller means
    pk_attr: str
    sk_attr: str
    index: str | None = None
    newest_first: bool = False

    @property
    def hi_inclusive(self) -> str:
        """The largest legal sort key below ``hi``: the exact inclusive end for ``BETWEEN``."""
        return key_before(self.hi)

    def request(self, table_name: str | None = None, *, typed: bool = True) -> dict[str, Any]:
        """``client.query`` arguments: typed values (``{"S": ...}``) for a low-level client,
        plain ones (``typed=False``) for the client of a ``Table`` resource."""

        def value(text: str) -> Any:
            return {"S": text} if typed else text

        args: dict[str, Any] = {
            "KeyConditionExpression": "#pk = :pk AND #sk BETWEEN :lo AND :hi",
            "ExpressionAttributeNames": {"#pk": self.pk_attr, "#sk": self.sk_attr},
            "ExpressionAttributeValues": {
                ":pk": value(self.partition),
                ":lo": value(self.lo),
                ":hi": value(self.hi_inclusive),
            },
            "ScanIndexForward": not self.newest_first,
        }
        if self.index is not None:
            args["IndexName"] = self.index
        if table_name is not None:
            args = {"TableName": table_name, **args}
        return args

    def condition(self) -> Any:
        """The same key condition as a ``boto3.dynamodb.conditions`` object (resource API)."""
        from boto3.dynamodb.conditions import Key

        return Key(self.pk_attr).eq(self.partition) & Key(self.sk_attr).between(
            self.lo, self.hi_inclusive
        )

    def __str__(self) -> str:
        where = "table" if self.index is None else f"index={self.index}"
        order = "newest first" if self.newest_first else "oldest first"
        return (
            f"Query {where}: {self.pk_attr} = {self.partition!r} AND {self.sk_attr} BETWEEN "
            f"{show_key(self.lo)} AND {show_key(self.hi_inclusive)}  "
            f"[= {self.lo!r} <= {self.sk_attr} < {self.hi!r}, {order}]"
        )


@dataclass(frozen=True)
class QueryPlan:
    """The calls answering one window query.

    ``groups`` are in result order (one per time bucket); the calls inside a group are
    shards whose results are merged by sort key. ``template`` is the sort key template an
    item must fit to be returned (children and other item types are skipped).
    """

    groups: tuple[tuple[QueryCall, ...], ...]
    template: KeyTemplate
    sk_attr: str
    newest_first: bool = False
    limit: int | None = None
    description: str = ""

    @property
    def calls(self) -> tuple[QueryCall, ...]:
        return tuple(call for group in self.groups for call in group)

    @property
    def is_empty(self) -> bool:
        return not self.groups or self.limit == 0

    def lines(self) -> list[str]:
        """One line per Query call (what ``--explain`` prints)."""
        if self.is_empty:
            return []
        return [str(call) for call in self.calls]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _check_limit(limit: int | None, name: str = "limit") -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidValue(f"{name}={describe(limit)} must be an int >= 0 (or None for no limit)")
    return limit


def _id_bound(ms: int) -> str:
    """Id-space bound of a millisecond: its smallest ULID."""
    return base32.encode_time(ms) + _ZEROS


def _after_range(ulid: ULID, rest: str | None, prefix: str, newest_first: bool) -> tuple[str, str]:
    """Id-space range strictly past the cursor in result order.

    ``rest`` (the cursor's sort key after ``prefix``, given when items can share a ULID)
    resumes past that one key; without it the whole ULID is passed, its children excluded too.
    """
    if rest is not None:
        if newest_first:
            return _ALL_LO, rest
        # rest starts with a ULID, whose characters can always be raised: the result keeps
        # the prefix
        return key_after(prefix + rest)[len(prefix) :], _ALL_HI
    if newest_first:
        return _ALL_LO, str(ulid)
    if str(ulid) == MAX_ULID:
        return _ALL_HI, _ALL_HI  # nothing comes after the largest ULID
    return str(ULID.from_int(ulid.int + 1)), _ALL_HI


def _plan(
    entity: Entity,
    *,
    start_ms: int | None,
    end_ms: int | None,
    newest_first: bool,
    limit: int | None,
    index: str | None,
    after: object,
    fields: Mapping[str, object],
    description: str,
) -> QueryPlan:
    """The plan for ULID times in ``[start_ms, end_ms)``; ``None`` leaves that end open."""
    limit = _check_limit(limit)
    schema: KeySchema = entity.schema(index)
    values = entity.query_values(schema, fields)
    prefix = schema.sk.prefix_before(entity.id_field, values)

    lo = _ALL_LO if start_ms is None else _id_bound(start_ms)
    hi = _ALL_HI if end_ms is None else _id_bound(end_ms)
    if after is not None:
        ulid, rest = entity.cursor(after, schema, prefix)
        after_lo, after_hi = _after_range(ulid, rest, prefix, newest_first)
        lo, hi = max(lo, after_lo), min(hi, after_hi)

    spans: list[tuple[str | None, str, str]] = [(values.get(BUCKET), lo, hi)]
    if BUCKET in schema.pk.fields and BUCKET not in values:
        assert entity.bucketing is not None
        if start_ms is None or end_ms is None:
            raise InvalidQuery(
                f"{entity.name} is bucketed by {entity.bucketing.size}: give since= so the "
                "query knows which buckets to visit"
            )
        spans = [
            (label, max(lo, _id_bound(first)), min(hi, _id_bound(last)))
            for label, first, last in entity.bucketing.spans(start_ms, end_ms)
        ]
    shards: list[str | None] = [values.get(SHARD)]
    if SHARD in schema.pk.fields and SHARD not in values:
        assert entity.shards is not None
        shards = [str(n) for n in range(entity.shards)]

    groups: list[tuple[QueryCall, ...]] = []
    count = 0
    for label, span_lo, span_hi in spans:
        if span_lo >= span_hi:
            continue  # nothing of this bucket is in the window (or past ``after``)
        count += len(shards)
        if count > MAX_CALLS:
            raise InvalidQuery(
                f"this window needs more than {MAX_CALLS} Query calls over {entity.name}'s "
                "buckets and shards; query a narrower window"
            )
        group = []
        for shard in shards:
            partition_values = dict(values)
            if label is not None:
                partition_values[BUCKET] = label
            if shard is not None:
                partition_values[SHARD] = shard
            group.append(
                QueryCall(
                    partition=schema.pk.render(partition_values),
                    lo=prefix + span_lo,
                    hi=prefix + span_hi,
                    pk_attr=schema.pk_attr,
                    sk_attr=schema.sk_attr,
                    index=schema.index,
                    newest_first=newest_first,
                )
            )
        groups.append(tuple(group))
    if newest_first:
        groups.reverse()
    return QueryPlan(
        groups=tuple(groups),
        template=schema.sk,
        sk_attr=schema.sk_attr,
        newest_first=newest_first,
        limit=limit,
        description=description,
    )


def plan_window(
    entity: Entity,
    window: TimeWindow,
    *,
    newest_first: bool = False,
    limit: int | None = None,
    index: str | None = None,
    after: object = None,
    fields: Mapping[str, object],
) -> QueryPlan:
    """The calls for ``entity``'s items whose ULID time is in the half-open ``window``."""
    return _plan(
        entity,
        start_ms=window.start_ms,
        end_ms=window.end_ms,
        newest_first=newest_first,
        limit=limit,
        index=index,
        after=after,
        fields=fields,
        description=f"{entity.name} in {window}",
    )


def plan_latest(
    entity: Entity,
    n: int,
    *,
    since: TimeInput | None = None,
    index: str | None = None,
    fields: Mapping[str, object],
) -> QueryPlan:
    """The calls for the ``n`` newest items (newest first), from ``since`` if given.

    Unbucketed entities need no end: every ULID sorts below the id-space bound ``"8"``. A
    bucketed one walks back from the bucket holding now.
    """
    _check_limit(n, "n")
    start_ms = None if since is None else to_ms(since, "since")
    end_ms = None
    if entity.bucketing is not None:
        now = now_ms()
        end_ms = entity.bucketing.next_start(entity.bucketing.start(now))
        if start_ms is not None and start_ms > end_ms:
            raise InvalidQuery(f"since={format_ms(start_ms)} is in the future")
    return _plan(
        entity,
        start_ms=start_ms,
        end_ms=end_ms,
        newest_first=True,
        limit=n,
        index=index,
        after=None,
        fields=fields,
        description=f"latest {n} of {entity.name}",
    )
