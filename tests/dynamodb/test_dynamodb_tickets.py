"""The ticket server on moto: concurrent callers from 8 threads and 4 processes get no ticket
twice, and no gaps beyond the split and the blocks; two counters (increment 2, offsets 1 and 2)
share the numbers out; every client form; the counter's failures.

moto's DynamoDB does an ``UpdateItem`` as an unlocked read-modify-write, so concurrent ADDs
there can lose updates (real DynamoDB serializes the writes to one item); the module makes
moto's ``UpdateItem`` atomic, so these tests check the library, not moto.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest
from faults import moto_server
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import TICKET, Entity, Table, TicketServer, TicketSplit
from ulidkeys.dynamodb.tickets import COUNT
from ulidkeys.errors import (
    InvalidQuery,
    InvalidType,
    InvalidValue,
    TicketCounterMismatch,
    UnexpectedResponse,
    UnsupportedClient,
)

TABLE, OTHER, SERVED = "tickets", "tickets-eu", "tickets-http"
FLICKR_ID = 72157623227190423  # the survey's Tickets64 row: an odd ticket (server 1's)


@pytest.fixture(scope="module", autouse=True)
def atomic_moto_updates() -> Iterator[None]:
    from moto.dynamodb.responses import DynamoHandler

    original = DynamoHandler.update_item
    lock = threading.Lock()

    def update_item(self: Any) -> Any:
        with lock:  # one UpdateItem at a time, as DynamoDB applies writes to one item
            return original(self)

    DynamoHandler.update_item = update_item  # type: ignore[method-assign]
    yield
    DynamoHandler.update_item = original  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE)
        create_table(client, OTHER)
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        yield {"client": client, "table": resource.Table(TABLE), "other": resource.Table(OTHER)}


@pytest.fixture
def key(request: pytest.FixtureRequest) -> dict[str, str]:
    """A counter item of the test's own (the tables are shared by the module)."""
    return {"PK": "Tickets64", "SK": request.node.name}


def in_threads(n: int, work: Callable[[int], list[int]]) -> list[list[int]]:
    """``work(i)`` in ``n`` threads started together; their results in thread order."""
    start = threading.Barrier(n)

    def run(i: int) -> list[int]:
        start.wait()
        return work(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def flat(lists: list[list[int]]) -> list[int]:
    return [t for part in lists for t in part]


def test_eight_threads_one_at_a_time_get_every_ticket_once(
    aws: dict[str, Any], key: dict[str, str]
) -> None:
    servers = [TicketServer(aws["table"], key) for _ in range(8)]
    got = flat(in_threads(8, lambda i: [servers[i].next() for _ in range(15)]))
    assert sorted(got) == list(range(1, 121))  # no duplicate, no gap
    assert servers[0].count() == 120 and sum(s.calls for s in servers) == 120


def test_one_server_shared_by_threads_hands_its_blocks_out_once(
    aws: dict[str, Any], key: dict[str, str]
) -> None:
    server = TicketServer(aws["table"], key, block=10)
    got = flat(in_threads(8, lambda _: [server.next() for _ in range(30)]))
    assert len(set(got)) == len(got) == 240
    assert server.calls == 24 and server.count() == 240  # one ADD per 10 tickets
    assert sorted(got) == list(range(1, 241))  # a shared server leaves no gap


def test_servers_per_thread_leave_only_their_unused_block_tails(
    aws: dict[str, Any], key: dict[str, str]
) -> None:
    servers = [TicketServer(aws["client"], key, table_name=TABLE, block=7) for _ in range(8)]
    got = flat(in_threads(8, lambda i: [servers[i].next() for _ in range(20)]))  # 3 blocks each
    unused = flat([list(s._pending) for s in servers])
    assert len(set(got)) == len(got) == 160
    assert all(len(s._pending) == 1 for s in servers)  # 21 reserved, 20 handed out
    assert sorted(got + unused) == list(range(1, servers[0].count() + 1)) == list(range(1, 169))


def test_two_counters_with_increment_two_share_the_numbers_out(
    aws: dict[str, Any], key: dict[str, str]
) -> None:
    # Flickr's two ticket servers: two tables (or regions), odd and even, no coordination.
    one = [TicketServer(aws["table"], key, increment=2, offset=1) for _ in range(4)]
    two = [TicketServer(aws["other"], key, increment=2, offset=2, block=4) for _ in range(4)]
    servers = one + two
    results = in_threads(8, lambda i: [servers[i].next() for _ in range(15)])
    odd, even = flat(results[:4]), flat(results[4:])
    assert sorted(odd) == list(range(1, 120, 2))
    unused = flat([list(s._pending) for s in two])
    assert all(t % 2 == 0 for t in even + unused) and len(set(even)) == len(even) == 60
    assert [len(s._pending) for s in two] == [1, 1, 1, 1]  # 4 blocks of 4 each, 15 handed out
    assert sorted(even + unused) == list(range(2, 2 * 64 + 1, 2))
    assert not set(odd) & set(even)


@pytest.mark.parametrize("form", ["table", "resource_client", "client"])
def test_every_client_form_counts_alike(
    aws: dict[str, Any], form: str, key: dict[str, str]
) -> None:
    given = {
        "table": (aws["table"], None),
        "resource_client": (aws["table"].meta.client, TABLE),
        "client": (aws["client"], TABLE),
    }[form]
    server = TicketServer(given[0], key, table_name=given[1], increment=3, offset=2, block=2)
    assert [server.next() for _ in range(3)] == [2, 5, 8]
    assert server.take(4) == range(14, 24, 3)  # slots 5..8: slot 4 (11) waits in the block
    assert server.next() == 11 and server.count() == 8
    stored = aws["table"].get_item(Key=key)["Item"]
    assert (stored[COUNT], stored["ticket_increment"], stored["ticket_offset"]) == (8, 3, 2)


def test_flickr_worked_example_continues_after_old_tickets(
    aws: dict[str, Any], key: dict[str, str]
) -> None:
    server1 = TicketServer(aws["table"], key, increment=2, offset=1, block=10)
    server2 = TicketServer(aws["other"], key, increment=2, offset=2)
    assert server1.next() == 1  # a block of 1..19 is waiting locally
    assert server1.advance_past(FLICKR_ID) == TicketSplit(2, 1).slot_of(FLICKR_ID)
    assert server1.next() == FLICKR_ID + 2  # the block (all below) was dropped
    server2.advance_past(FLICKR_ID)
    assert server2.next() == FLICKR_ID + 1
    count = server1.count()
    assert server1.advance_past(5) == count  # never moves back
    assert server1.next() == FLICKR_ID + 4


def test_a_second_split_on_one_item_is_refused_and_takes_nothing(
    aws: dict[str, Any], key: dict[str, str]
) -> None:
    TicketServer(aws["table"], key, increment=2, offset=1).take(3)
    clash = TicketServer(aws["table"], key, increment=2, offset=2)
    with pytest.raises(TicketCounterMismatch, match="increment=2, offset=1, not 2/2"):
        clash.next()
    with pytest.raises(TicketCounterMismatch):
        clash.advance_past(100)
    with pytest.raises(TicketCounterMismatch):
        TicketServer(aws["table"], key, increment=3, offset=1).take(1)
    assert clash.count() == 3


def test_a_damaged_counter_or_answer_raises(aws: dict[str, Any], key: dict[str, str]) -> None:
    aws["table"].put_item(Item={**key, COUNT: "seven"})
    server = TicketServer(aws["table"], key)
    with pytest.raises(UnexpectedResponse, match="'seven', not a count"):
        server.count()
    with pytest.raises(Exception, match="ValidationException"):  # AWS's own error, as is
        server.next()

    class NoAttributes:  # a client whose UpdateItem answers without the new count
        def __init__(self, client: Any) -> None:
            self.client = client

        def update_item(self, **args: Any) -> dict[str, Any]:
            self.client.update_item(**args)
            return {}

        def __getattr__(self, name: str) -> Any:
            return getattr(self.client, name)

    lost = TicketServer(NoAttributes(aws["client"]), {"PK": "T", "SK": "b"}, table_name=TABLE)  # type: ignore[arg-type]
    with pytest.raises(UnexpectedResponse, match="without the new 'tickets_taken'"):
        lost.next()
    assert TicketServer(aws["client"], {"PK": "T", "SK": "b"}, table_name=TABLE).next() == 2


def test_a_reply_lost_after_the_add_leaves_a_gap_never_a_repeat(aws: dict[str, Any]) -> None:
    class LosesOneReply:  # the ADD lands, then the connection drops (after botocore's retries)
        def __init__(self, client: Any) -> None:
            self.client, self.lost = client, False

        def update_item(self, **args: Any) -> dict[str, Any]:
            answer = self.client.update_item(**args)
            if not self.lost:
                self.lost = True
                raise ConnectionError("reply lost")
            return answer

        def __getattr__(self, name: str) -> Any:
            return getattr(self.client, name)

    key = {"PK": "Tickets64", "SK": "lossy"}
    server = TicketServer(LosesOneReply(aws["client"]), key, table_name=TABLE, block=3)  # type: ignore[arg-type]
    with pytest.raises(ConnectionError):
        server.next()
    assert [server.next() for _ in range(4)] == [4, 5, 6, 7]  # slots 1..3 are burned
    assert server.count() == 9


def test_arguments_are_checked(aws: dict[str, Any], key: dict[str, str]) -> None:
    table = aws["table"]
    for bad in ({}, {"PK": ""}, {"PK": 1}, {"PK": "a", COUNT: "b"}, "Tickets64"):
        with pytest.raises(InvalidValue, match="must map the table's key attributes"):
            TicketServer(table, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidValue, match="block=0 is out of range"):
        TicketServer(table, key, block=0)
    with pytest.raises(InvalidValue, match=r"offset=3 must be in 1 \.\. increment"):
        TicketServer(table, key, increment=2, offset=3)
    with pytest.raises(InvalidType, match=r"n=1\.5"):
        TicketServer(table, key).take(1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidQuery, match="table_name= is required"):
        TicketServer(aws["client"], key)
    with pytest.raises(UnsupportedClient):
        TicketServer(object(), key, table_name=TABLE)  # type: ignore[arg-type]
    assert TicketServer(table, key).count() == 0  # nothing was written by the refusals


def test_tickets_as_sort_keys_list_in_ticket_order(aws: dict[str, Any]) -> None:
    photo = Entity(pk="Org#{org}", sk="Photo#{id}", scheme=TICKET)
    photos = Table(aws["table"], photo)
    server = TicketServer(aws["table"], {"PK": "Tickets#photo", "SK": "counter"}, block=4)
    with photos.batch_writer() as writer:
        for n in range(12):
            writer.put({**photo.keys(org="acme", id=server.next()), "n": n})
    newest = aws["table"].query(  # the 3 highest tickets: a plain descending Query
        KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
        ExpressionAttributeValues={":pk": "Org#acme", ":p": "Photo#"},
        ScanIndexForward=False,
        Limit=3,
    )["Items"]
    assert [photo.parse(item)["id"] for item in newest] == [
        TICKET.from_int(t) for t in (12, 11, 10)
    ]
    with pytest.raises(InvalidValue, match="ticket ids hold no time"):
        photos.query_window(0, 10**12, org="acme")
    with pytest.raises(InvalidValue, match="ticket ids hold no time"):
        photos.latest(3, org="acme")


# --- processes, through moto's HTTP server ------------------------------------------------


def take_in_child(endpoint: str, n: int, block: int) -> tuple[list[int], list[int]]:
    """In a child process: its own client and server; the tickets it got and its unused ones."""
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    key = {"PK": "Tickets64", "SK": "processes"}
    server = TicketServer(client, key, table_name=SERVED, increment=2, offset=1, block=block)
    return [server.next() for _ in range(n)], list(server._pending)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        create_table(boto3.client("dynamodb", region_name="us-east-1", endpoint_url=url), SERVED)
        yield url


def test_four_processes_get_disjoint_tickets(endpoint: str) -> None:
    # The odd counter: two processes one ticket at a time, two with blocks of 5; 12 each.
    jobs = [(endpoint, 12, 1), (endpoint, 12, 1), (endpoint, 12, 5), (endpoint, 12, 5)]
    with multiprocessing.get_context("fork").Pool(4) as pool:
        results = pool.starmap(take_in_child, jobs)
    got = flat([handed for handed, _ in results])
    unused = flat([rest for _, rest in results])
    assert len(set(got)) == len(got) == 48
    assert [len(rest) for _, rest in results] == [0, 0, 3, 3]  # 15 reserved, 12 handed out
    assert sorted(got + unused) == list(range(1, 2 * 54, 2))  # the odd tickets of 54 slots


def test_a_forked_child_drops_the_parents_block(endpoint: str) -> None:
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    server = TicketServer(client, {"PK": "Fork", "SK": "a"}, table_name=SERVED, block=10)
    assert server.next() == 1  # 2..10 wait in this process's block
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=lambda: send.send((server.next(), os.getpid())))
    child.start()  # the child inherits the server, block and all
    ticket, pid = receive.recv()
    child.join()
    assert pid != os.getpid() and ticket == 11  # the child reserved a block of its own
    assert [server.next() for _ in range(9)] == list(range(2, 11))
    assert server.next() == 21 and server.count() == 30
