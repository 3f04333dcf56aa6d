"""Seeded fault injection through moto's HTTP server for ``tests/test_faults.py`` (short run)
and ``benchmarks/faults.py`` (long run): faulty requests, windows read to the end by resuming
from ``.cursor`` after every raise, and answers judged against brute force."""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import boto3
import botocore.endpoint
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.config import Config
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from faults import moto_server
from moto.s3.models import s3_backends

from ulidkeys import base32
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.engine.threads import Results
from ulidkeys.s3 import Bucket, KeyLayout

ACCOUNT = "123456789012"  # moto's default account: where keys written straight in land
HOUR = 3_600_000
DAY = 24 * HOUR
BASE = 1_715_904_000_000  # 2024-05-17T00:00:00Z
BUCKET = "faults"
TABLE = "faults"
#: Requests botocore sends per call, first try included, per retry mode. Config's
#: ``total_max_attempts``: its ``max_attempts`` counts retries only (1 there means 2 tries).
RETRY_MODES = {"on": 10, "reduced": 2, "off": 1}
#: Most listings one window may take (first try + resumes) before the harness gives up.
MAX_ROUNDS = 400

SHARDED = KeyLayout("up/", shards=4, period="day", suffix=".bin")
FLAT = KeyLayout("flat/")
POST = Entity(pk="Org#{org}", sk="Post#{id}")
COMMENT = Entity(pk="Org#{org}", sk="Post#{post}#Comment#{id}")  # children: read, skipped
HOT = Entity(pk="Hot#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="day", shards=3)
LAYOUTS = {"sharded": SHARDED, "flat": FLAT}
ENTITIES = {"POST": POST, "HOT": HOT}  # both written for every id


# --- faults ---------------------------------------------------------------------------------


class _Body:
    """The raw stream of a fake response (``AWSResponse.content`` joins ``stream()``)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.data


def _answer(status: int, body: bytes, content_type: str) -> Callable[[AWSPreparedRequest], Any]:
    def make(request: AWSPreparedRequest) -> AWSResponse:
        headers = {"Content-Type": content_type, "Content-Length": str(len(body))}
        return AWSResponse(request.url, status, headers, _Body(body))

    return make


def _s3_error(status: int, code: str, message: str) -> Callable[[AWSPreparedRequest], Any]:
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message}</Message>"
        "<RequestId>FAULT</RequestId></Error>"
    )
    return _answer(status, body.encode(), "application/xml")


def _dynamodb_error(status: int, code: str, message: str) -> Callable[[AWSPreparedRequest], Any]:
    body = {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}
    return _answer(status, json.dumps(body).encode(), "application/x-amz-json-1.0")


def _dropped(error: type[Exception]) -> Callable[[AWSPreparedRequest], Any]:
    def make(request: AWSPreparedRequest) -> None:
        raise error(endpoint_url=request.url)

    return make


@dataclass(frozen=True)
class Fault:
    """One way a request fails: ``make`` answers or raises instead of sending it; ``label`` is
    how the failure looks when it reaches the caller (see :func:`label`)."""

    name: str
    label: str
    make: Callable[[AWSPreparedRequest], Any]


DROPPED = (
    Fault("closed", "ConnectionClosedError", _dropped(ConnectionClosedError)),
    Fault("read-timeout", "ReadTimeoutError", _dropped(ReadTimeoutError)),
    Fault("no-endpoint", "EndpointConnectionError", _dropped(EndpointConnectionError)),
)
S3_FAULTS = (
    Fault("slowdown-503", "ClientError(SlowDown)", _s3_error(503, "SlowDown", "Reduce rate")),
    Fault("internal-500", "ClientError(InternalError)", _s3_error(500, "InternalError", "Oops")),
    *DROPPED,
    Fault("empty-200", "UnexpectedResponse", _answer(200, b"", "application/xml")),
)
DYNAMODB_FAULTS = (
    Fault(
        "throughput-400",
        "ClientError(ProvisionedThroughputExceededException)",
        _dynamodb_error(400, "ProvisionedThroughputExceededException", "Rate exceeded"),
    ),
    Fault(
        "throttling-400",
        "ClientError(ThrottlingException)",
        _dynamodb_error(400, "ThrottlingException", "Rate exceeded"),
    ),
    Fault(
        "internal-500",
        "ClientError(InternalServerError)",
        _dynamodb_error(500, "InternalServerError", "Internal server error"),
    ),
    *DROPPED,
    Fault("empty-200", "UnexpectedResponse", _answer(200, b"", "application/x-amz-json-1.0")),
)


def label(error: BaseException) -> str:
    """How a raise is counted: the ClientError's code, else the exception's class name."""
    if isinstance(error, ClientError):
        return f"ClientError({error.response.get('Error', {}).get('Code')})"
    return type(error).__name__


class Injector:
    """Answers a seeded share of one client's requests with a fault instead of sending them.

    The verdict on a request depends on the seed, the request (method, URL, body) and how often
    this injector saw that request before, so it does not depend on thread timing. With
    ``first=True`` the first request it sees is answered with a fault whatever the draw: a
    listing's later requests (read-ahead in flight when it raises) vary a little with thread
    timing, so a run could meet fewer seeded faults than it needs to prove anything; one sure
    fault per listing keeps that floor without depending on timing.
    """

    def __init__(
        self, seed: str, rate: float, faults: tuple[Fault, ...], *, first: bool = False
    ) -> None:
        self.seed, self.rate, self.faults, self.first = seed, rate, faults, first
        self.requests = 0
        self.injected: Counter[str] = Counter()
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def attach(self, client: Any, operation: str) -> Injector:
        service = client.meta.service_model.service_id.hyphenize()
        client.meta.events.register(f"before-send.{service}.{operation}", self.before_send)
        return self

    def before_send(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse | None:
        body = request.body
        text = body.decode() if isinstance(body, bytes) else str(body or "")
        url = urlsplit(request.url)  # not the host: the port changes from run to run
        what = f"{request.method} {url.path}?{url.query} {text}"
        with self._lock:
            self.requests += 1
            forced = self.first and self.requests == 1
            nth = self._seen[what]
            self._seen[what] += 1
        rng = random.Random(f"{self.seed}|{what}|{nth}")
        if rng.random() >= self.rate and not forced:
            return None  # sent to the server
        fault = rng.choice(self.faults)
        with self._lock:
            self.injected[fault.name] += 1
        return fault.make(request)  # type: ignore[no-any-return]


class _Clock:
    """``time`` as botocore's endpoint sees it during a run: retry backoff is added up, not
    slept, so a run is bound by its requests rather than by jitter."""

    def __init__(self) -> None:
        self.skipped = 0.0
        self._lock = threading.Lock()

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.skipped += seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


# --- the data -------------------------------------------------------------------------------


@dataclass
class World:
    """moto's server holding one bucket (two layouts) and one table (three entities), the ids
    written to them (``(ms, ulid)``, sorted) and each id's ``"PK SK"`` per entity queried."""

    endpoint: str
    ids: list[tuple[int, str]]
    days: int
    clock: _Clock
    session: Any = field(repr=False)
    dynamodb_keys: dict[str, dict[str, str]] = field(default_factory=dict)

    def client(self, service: str, max_attempts: int) -> Any:
        config = Config(
            retries={"total_max_attempts": max_attempts, "mode": "standard"},
            connect_timeout=5,
            read_timeout=20,
        )
        return self.session.client(service, endpoint_url=self.endpoint, config=config)

    def in_window(self, start: int, end: int) -> list[str]:
        return [ulid for ms, ulid in self.ids if start <= ms < end]


def make_ids(rng: random.Random, count: int, days: int) -> list[tuple[int, str]]:
    """``count`` ids over ``days`` days from BASE: mostly uniform, plus ids on every day
    boundary (and 1 ms either side) and a burst of ids sharing one millisecond."""
    times = [BASE + rng.randrange(days * DAY) for _ in range(count)]
    times += [BASE + d * DAY + delta for d in range(1, days) for delta in (-1, 0, 1)]
    times += [BASE + DAY // 3] * 12
    ids = {base32.encode_time(ms) + base32.encode_random(rng.getrandbits(80)): ms for ms in times}
    return sorted((ms, ulid) for ulid, ms in ids.items())


def _fill_bucket(client: Any, ids: list[tuple[int, str]]) -> None:
    """Both layouts' keys (and keys that fit neither) straight into moto's backend: the server
    runs in this process, and ``put_object`` over HTTP would cost ~1 ms a key."""
    client.create_bucket(Bucket=BUCKET)
    backend = s3_backends[ACCOUNT]["global"]
    keys = [layout.key_for(ulid) for layout in (SHARDED, FLAT) for _, ulid in ids]
    keys += ["up/README", "up/00/dt=2024-05-17/not-an-id.bin", "flat/zzz", "flat/01-not-an-id"]
    for key in keys:
        backend.put_object(BUCKET, key, b"", disable_notification=True)


def _fill_table(
    client: Any, ids: list[tuple[int, str]], rng: random.Random
) -> dict[str, dict[str, str]]:
    """Posts of ``acme`` as POST and as HOT (day buckets x 3 shards), posts of another org and
    comments (children, in the posts' key range); returns each post's ``"PK SK"`` by entity."""
    client.create_table(**POST.table_definition(TABLE))
    keys: dict[str, dict[str, str]] = {name: {} for name in ENTITIES}
    for name, entity in ENTITIES.items():
        with Table(client, entity, table_name=TABLE).batch_writer() as writer:
            for _, ulid in ids:
                item = entity.keys(org="acme", id=ulid)
                writer.put(item)
                keys[name][ulid] = f"{item['PK']} {item['SK']}"
    with Table(client, POST, table_name=TABLE).batch_writer() as writer:
        for _, ulid in ids[::7]:
            writer.put(POST.keys(org="other", id=ulid))
    with Table(client, COMMENT, table_name=TABLE).batch_writer() as writer:
        for ms, ulid in ids[::5]:
            comment = base32.encode_time(ms) + base32.encode_random(rng.getrandbits(80))
            writer.put(COMMENT.keys(org="acme", post=ulid, id=comment))
    return keys


@contextmanager
def moto_world(seed: int = 1, count: int = 1000, days: int = 3) -> Iterator[World]:
    """moto's server on a free local port with the bucket and the table filled; botocore's
    retry backoff is not slept meanwhile. The server stops on exit."""
    with moto_server() as endpoint:
        session = boto3.session.Session(
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            aws_session_token="testing",
            region_name="us-east-1",
        )
        rng = random.Random(f"data {seed}")
        world = World(endpoint, make_ids(rng, count, days), days, _Clock(), session)
        try:
            _fill_bucket(world.client("s3", 3), world.ids)
            world.dynamodb_keys = _fill_table(world.client("dynamodb", 3), world.ids, rng)
            with mock.patch.object(botocore.endpoint, "time", world.clock):
                yield world
        finally:
            _remove(world)


def _remove(world: World) -> None:
    """Delete the bucket and the table: moto's backends outlive its server in this process."""
    s3 = world.client("s3", 3)
    with suppress(ClientError):
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
            keys = [{"Key": obj["Key"]} for obj in page.get("Contents", [])]
            if keys:
                s3.delete_objects(Bucket=BUCKET, Delete={"Objects": keys, "Quiet": True})
        s3.delete_bucket(Bucket=BUCKET)
    with suppress(ClientError):
        world.client("dynamodb", 3).delete_table(TableName=TABLE)


# --- windows --------------------------------------------------------------------------------


Opener = Callable[[Any, str | None, int], Results[Any]]


@dataclass(frozen=True)
class Case:
    """One window of a service to read: ``open(client, cursor, got)`` starts (cursor None) or
    resumes the listing with ``got`` items already read; ``key`` names an item as ``expected``
    does."""

    service: str
    name: str
    expected: list[str]
    open: Opener
    key: Callable[[Mapping[str, Any]], str]


def random_window(rng: random.Random, world: World) -> tuple[int, int]:
    """``[start, end)``: a third each short (1 min .. 1 h), medium (.. 12 h) and long (up to
    the whole data set and past it), log-uniform; half the time starting exactly on an id's
    millisecond, sometimes ending exactly on one."""
    span = world.days * DAY
    if rng.random() < 0.5:
        start = rng.choice(world.ids)[0]
    else:
        start = BASE - DAY // 4 + rng.randrange(span + DAY // 2)
    low, high = rng.choice(((60_000, HOUR), (HOUR, DAY // 2), (DAY // 2, span + DAY // 2)))
    end = start + int(math.exp(rng.uniform(math.log(low), math.log(high))))
    later = [ms for ms, _ in world.ids if start < ms < end]
    if later and rng.random() < 0.3:
        end = rng.choice(later)  # exclusive: the ids of that millisecond are left out
    return start, end


def s3_case(rng: random.Random, world: World) -> Case:
    """An oldest-first window or ``latest(n)``, of either layout, with pages of 20..1000 keys."""
    layout = rng.choice(tuple(LAYOUTS))
    start, end = random_window(rng, world)
    if rng.random() < 0.35:
        return s3_latest(world, layout, start, end, rng.choice((1, 7, 60, 400, 2000)))
    return s3_window(world, layout, start, end, rng.choice((20, 100, 1000)))


def s3_window(world: World, layout: str, start: int, end: int, page: int = 1000) -> Case:
    """``list_window`` of a layout of LAYOUTS (with ``page`` below 1000: its plan, run with
    pages of that many keys)."""
    chosen = LAYOUTS[layout]
    expected = [chosen.key_for(ulid) for ulid in world.in_window(start, end)]

    def window(client: Any, cursor: str | None, got: int) -> Results[Any]:
        bucket = Bucket(client, BUCKET, chosen)
        if page == 1000:  # list_window's own page size
            if cursor is None:
                return bucket.list_window(start, end)
            return bucket.list_window(cursor=cursor)
        if cursor is None:
            return bucket.run(bucket.plan_window(start, end, max_keys=page))
        return bucket.run(bucket.plan_window(cursor=cursor, max_keys=page))

    return Case("s3", f"window {layout} pages={page} [{start}, {end})", expected, window, _s3_key)


def s3_latest(world: World, layout: str, start: int, end: int, n: int) -> Case:
    """``latest(n)`` of a layout of LAYOUTS, resumed as ``latest(n - got, cursor=...)``."""
    chosen = LAYOUTS[layout]
    expected = [chosen.key_for(ulid) for ulid in world.in_window(start, end)][::-1][:n]

    def latest(client: Any, cursor: str | None, got: int) -> Results[Any]:
        bucket = Bucket(client, BUCKET, chosen)
        if cursor is None:
            return bucket.latest(n - got, since=start, until=end)
        return bucket.latest(n - got, cursor=cursor)

    return Case("s3", f"latest({n}) {layout} [{start}, {end})", expected, latest, _s3_key)


def _s3_key(obj: Mapping[str, Any]) -> str:
    return str(obj["Key"])


def dynamodb_case(rng: random.Random, world: World) -> Case:
    """A window of POST (one partition, children skipped) or HOT (day buckets x shards),
    oldest or newest first, sometimes with a limit, with pages of 10..all items."""
    entity = rng.choice(tuple(ENTITIES))
    start, end = random_window(rng, world)
    newest = rng.random() < 0.5
    limit = rng.choice((None, None, 5, 300))
    return dynamodb_window(world, entity, start, end, newest, limit, rng.choice((10, 50, None)))


def dynamodb_window(
    world: World,
    entity: str,
    start: int,
    end: int,
    newest: bool = False,
    limit: int | None = None,
    page: int | None = None,
) -> Case:
    """``query_window`` of an entity of ENTITIES, resumed with ``limit - got``."""
    chosen = ENTITIES[entity]
    keys = world.dynamodb_keys[entity]
    expected = [keys[ulid] for ulid in world.in_window(start, end)]
    expected = (expected[::-1] if newest else expected)[:limit]

    def query(client: Any, cursor: str | None, got: int) -> Results[Any]:
        table = Table(client, chosen, table_name=TABLE)
        since, until = (start, end) if cursor is None else (None, None)
        return table.query_window(
            since,
            until,
            newest_first=newest,
            limit=None if limit is None else limit - got,
            cursor=cursor,
            page_size=page,
            org="acme",
        )

    order = "newest" if newest else "oldest"
    title = f"{entity} {order} limit={limit} pages={page} [{start}, {end})"
    return Case("dynamodb", title, expected, query, _dynamodb_key)


def _dynamodb_key(item: Mapping[str, Any]) -> str:
    return f"{item['PK']} {item['SK']}"


SERVICES: dict[str, tuple[Callable[[random.Random, World], Case], str, tuple[Fault, ...]]] = {
    "s3": (s3_case, "ListObjectsV2", S3_FAULTS),
    "dynamodb": (dynamodb_case, "Query", DYNAMODB_FAULTS),
}


# --- running and judging --------------------------------------------------------------------


@dataclass
class Tally:
    """What a run of windows met and gave; ``wrong`` (lost .. silent) must be 0."""

    windows: int = 0
    requests: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    raises: Counter[str] = field(default_factory=Counter)
    resumes: int = 0
    lost: int = 0  # expected items never returned (of a window given up: before its last)
    duplicated: int = 0  # items returned more than once
    out_of_order: int = 0  # items returned before one they follow
    extra: int = 0  # items returned that are not in the answer (outside the window)
    silent: int = 0  # listings that ended without raising, short of the answer
    gave_up: int = 0  # windows still raising after max_rounds listings (slow, not wrong)
    problems: list[str] = field(default_factory=list)

    @property
    def wrong(self) -> int:
        return self.lost + self.duplicated + self.out_of_order + self.extra + self.silent

    def judge(self, case: Case, got: list[str], finished: bool) -> None:
        rank = {key: number for number, key in enumerate(case.expected)}
        reached = len(case.expected)
        if not finished:  # only what precedes the last item returned can be missing
            reached = 1 + max((rank[key] for key in got if key in rank), default=-1)
        lost = len(set(case.expected[:reached]) - set(got))
        duplicated = len(got) - len(set(got))
        extra = len({key for key in got if key not in rank})
        out_of_order = 0
        last = -1
        for key in dict.fromkeys(got):
            if key in rank:
                out_of_order += rank[key] < last
                last = max(last, rank[key])
        silent = int(finished and len(got) < len(case.expected))
        self.windows += 1
        self.lost += lost
        self.duplicated += duplicated
        self.extra += extra
        self.out_of_order += out_of_order
        self.silent += silent
        self.gave_up += not finished
        if lost or duplicated or extra or out_of_order or silent or not finished:
            self.problems.append(
                f"{case.service} {case.name}: expected {len(case.expected)}, got {len(got)} "
                f"(lost {lost}, duplicated {duplicated}, outside {extra}, "
                f"out of order {out_of_order}, {'ended' if finished else 'gave up'})"
            )


def consume(
    world: World,
    case: Case,
    max_attempts: int,
    seed: str,
    rate: float,
    tally: Tally,
    *,
    max_rounds: int = MAX_ROUNDS,
    faults: tuple[Fault, ...] | None = None,
) -> None:
    """Read the window to its end, resuming from the last cursor after every raise (from the
    start while nothing was read); ``faults`` defaults to the service's.

    Each listing gets a fresh client and injector, so the faults it meets depend only on the
    seed and on what it asks, not on threads still finishing an abandoned listing's requests.
    Only the request and fault counts vary by a few between runs: read-ahead requests in
    flight when a listing raises are sent or not, depending on thread timing.
    """
    service = case.service
    _, operation, service_faults = SERVICES[service]
    faults = service_faults if faults is None else faults
    got: list[str] = []
    cursor: str | None = None
    finished = False
    for attempt in range(max_rounds):
        client = world.client(service, max_attempts)
        injector = Injector(f"{seed}|{attempt}", rate, faults, first=attempt == 0)
        injector.attach(client, operation)
        results: Results[Any] | None = None
        try:
            results = case.open(client, cursor, len(got))  # latest() may send requests here
            for item in results:
                got.append(case.key(item))
            finished = True
        except Exception as error:  # every raise is resumed; test_faults checks which
            tally.raises[label(error)] += 1
            if results is not None and results.cursor is not None:
                cursor = results.cursor
        finally:
            if results is not None:
                results.close()
            tally.requests += injector.requests
            tally.injected.update(injector.injected)
        if finished:
            break
        tally.resumes += 1
    tally.judge(case, got, finished)


def run_windows(
    world: World,
    service: str,
    mode: str,
    windows: int,
    seed: int,
    rate: float,
    max_rounds: int = MAX_ROUNDS,
) -> Tally:
    """``windows`` seeded windows of one service, in one retry mode (a key of RETRY_MODES)."""
    make_case = SERVICES[service][0]
    rng = random.Random(f"windows {seed} {service} {mode}")
    tally = Tally()
    for number in range(windows):
        case = make_case(rng, world)
        fault_seed = f"{seed}|{service}|{mode}|{number}"
        attempts = RETRY_MODES[mode]
        consume(world, case, attempts, fault_seed, rate, tally, max_rounds=max_rounds)
    return tally


def faults_of(service: str, *names: str) -> tuple[Fault, ...]:
    """The service's faults (those named, if any names are given)."""
    return tuple(f for f in SERVICES[service][2] if not names or f.name in names)


def allowed_raises(service: str) -> set[str]:
    """The labels a raise may have: the injected faults as they reach the caller."""
    return {fault.label for fault in faults_of(service)}
