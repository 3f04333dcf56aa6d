"""``ulidkeys query``: the DynamoDB items of an entity (or of a collection's kinds, with a
kind column) in a window, the newest, or what is new since a checkpoint.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from typing import Any

from ulidkeys import config
from ulidkeys.cli.aws import (
    aws_options,
    aws_session,
    check_targets,
    consume_checkpointed,
    explain,
    fields_of,
    print_cursor,
    refuse_with_checkpoint,
)
from ulidkeys.cli.options import (
    Command,
    add_read_options,
    add_window,
    count_arg,
    given,
)
from ulidkeys.cli.output import counted, emit, json_text, report
from ulidkeys.cli.progress import track
from ulidkeys.config.declarations import indexes
from ulidkeys.dynamodb import Collection, Entity, Table
from ulidkeys.emit.awscli import dynamodb_commands
from ulidkeys.errors import InvalidValue
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.periods import PERIOD_NAMES
from ulidkeys.planning.plans import Plan
from ulidkeys.planning.queries import QueryCall
from ulidkeys.survey import hints

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 50


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    query = command("query", "DynamoDB items of an entity (or a collection) in a time window")
    query.add_argument(
        "name",
        nargs="?",
        help="an entity or a collection named in the config file (or give --pk and --sk)",
    )
    query.add_argument(
        "--table", help="table name (required unless --explain or the config names it)"
    )
    query.add_argument("--pk", help="partition key template, e.g. 'Org#{org}'")
    query.add_argument(
        "--sk",
        action="append",
        help="sort key template, e.g. 'Post#{id}'; given again ('Comment#{id}'), the kinds are "
        "read together as a collection, with a kind column",
    )
    query.add_argument(
        "--field", action="append", default=[], metavar="NAME=VALUE", help="a key field value"
    )
    add_window(query, "default: the epoch")
    query.add_argument(
        "--newest-first", action="store_true", help="newest items first (default: oldest first)"
    )
    query.add_argument(
        "--limit", type=count_arg, default=None, help="print at most this many items (in order)"
    )
    query.add_argument(
        "--latest",
        type=count_arg,
        metavar="N",
        help="the N newest items (before --until; a bucketed entity also needs --since)",
    )
    query.add_argument(
        "--index",
        metavar="NAME",
        help="query this GSI of a config file's entity ([entities.NAME.gsi.INDEX] pk, sk)",
    )
    query.add_argument("--pk-attr", default=None, help="partition key attribute (default PK)")
    query.add_argument("--sk-attr", default=None, help="sort key attribute (default SK)")
    query.add_argument(
        "--bucket",
        choices=PERIOD_NAMES,
        default=None,
        help="time buckets in the partition key, the {bucket} of --pk",
    )
    query.add_argument(
        "--shards",
        type=count_arg,
        default=None,
        help="write shards in the partition key, the {shard} of --pk (0: none)",
    )
    add_read_options(query, "the ids in the sort keys", output="jsonl")
    query.set_defaults(handler=run)


#: The flags that declare keys: a collection named in the config file declares its own.
KEY_FLAGS = ("pk", "sk", "pk_attr", "sk_attr", "bucket", "shards", "scheme", "index")


def _query_entity(args: argparse.Namespace) -> Entity | Collection:
    """``query``'s entity: from ``--pk``/``--sk`` and the flags, or from an entity named in the
    config file (``query posts``), the flags overriding what it says (``args`` gets the
    resolved table and attribute names); or a collection named in the config file
    (``query activity``: every kind of the partition, with a kind column)."""
    settings: Mapping[str, Any] = {}
    templates: list[str] = args.sk or []
    args.sk = templates[0] if templates else None
    if len(templates) > 1:
        if args.name is not None:
            raise InvalidValue(
                f"several --sk make a collection of their own; they do not go with {args.name} "
                "(declare [collections.NAME] in the config file instead)"
            )
        return _collection_of_templates(args, templates)
    if args.name is not None:
        declared = config.load(args.config)
        if args.name in declared.collections:
            named = declared.collection(args.name)
            for flag in KEY_FLAGS:
                if getattr(args, flag) is not None:
                    raise InvalidValue(
                        f"--{flag.replace('_', '-')} does not go with the collection "
                        f"{args.name}: its entities in the config file declare its keys"
                    )
            args.table = given(args.table, named.table_name, None)
            args.sk_attr = named.collection.table.sk_attr
            return named.collection
        settings = declared.entity(args.name).settings
    elif args.pk is None or args.sk is None:
        raise InvalidValue(
            "query needs --pk and --sk (e.g. --pk 'Org#{org}' --sk 'Post#{id}'), or the name "
            "of an entity in the config file"
        )
    args.table = given(args.table, settings.get("table"), None)
    args.pk_attr = given(args.pk_attr, settings.get("pk_attr"), "PK")
    args.sk_attr = given(args.sk_attr, settings.get("sk_attr"), "SK")
    return Entity(
        pk=given(args.pk, settings.get("pk"), None),
        sk=given(args.sk, settings.get("sk"), None),
        pk_attr=args.pk_attr,
        sk_attr=args.sk_attr,
        bucket=given(args.bucket, settings.get("bucket"), None),
        shards=given(args.shards, settings.get("shards"), None) or None,  # 0: none, as for ls
        scheme=scheme_named(given(args.scheme, settings.get("scheme"), "ulid")),
        separator=settings.get("separator", "#"),
        id_field=settings.get("id_field", "id"),
        newest_first_keys=settings.get("newest_first_keys", False),
        gsi=indexes(settings),
    )


def _collection_of_templates(args: argparse.Namespace, templates: list[str]) -> Collection:
    """The collection of ``--pk`` and several ``--sk``: one kind each, named by the literal text
    of its template (``Post#{id}`` is ``Post``), or by the template when two would share it."""
    if args.pk is None:
        raise InvalidValue("several --sk need --pk, the partition key template they share")
    if args.index is not None:
        raise InvalidValue("--index does not go with several --sk: a collection reads the table")
    names = [re.sub(r"\{[^}]*\}", "", sk).strip("#") or sk for sk in templates]
    if len(set(names)) < len(names):
        names = list(templates)
    args.pk_attr = given(args.pk_attr, None, "PK")
    args.sk_attr = given(args.sk_attr, None, "SK")
    return Collection(
        *(
            Entity(
                pk=args.pk,
                sk=sk,
                name=name,
                pk_attr=args.pk_attr,
                sk_attr=args.sk_attr,
                bucket=args.bucket,
                shards=args.shards or None,
                scheme=scheme_named(args.scheme or "ulid"),
            )
            for sk, name in zip(templates, names, strict=True)
        )
    )


def run(args: argparse.Namespace) -> int:
    entity = _query_entity(args)
    fields: dict[str, Any] = dict(fields_of(args.field))
    if args.checkpoint is not None:
        refuse_with_checkpoint(args, "newest_first", "limit", "latest", "index")
        check_targets(args)  # before the first request, not at the commit after the calls
    if args.latest is not None:
        for flag in ("newest_first", "limit"):
            if getattr(args, flag):
                raise InvalidValue(
                    f"--{flag.replace('_', '-')} does not go with --latest (N newest, newest first)"
                )
        if args.explain:
            raise InvalidValue("--explain prints window plans; --latest has no fixed plan")
    window = {
        "newest_first": args.newest_first,
        "limit": args.limit,
        "cursor": args.cursor,
        "index": args.index,
    }
    if args.explain and args.checkpoint is None:
        plan = entity.plan_window(args.since, args.until, **window, **fields)
        commands = dynamodb_commands(args.table or "TABLE", plan, aws_options(args))
        return explain(plan.explain(), commands)
    if not args.table and not args.explain:
        raise InvalidValue("query needs --table (or --explain to print the plan only)")
    session = aws_session(args)
    client = session.client("dynamodb", endpoint_url=args.endpoint_url)
    table = Table(client, entity, table_name=args.table or "TABLE")

    def show(items: Any) -> int:
        stats = items.stats
        tracked = track(items, "items", lambda: (stats.returned, stats.calls))
        sort_key = args.sk_attr
        if isinstance(entity, Collection):  # a kind column: text first, JSON as a "kind" key
            return emit(
                ({"kind": got.kind, "item": got.item} for got in tracked),
                args.output,
                lambda row: (
                    f"{row['kind']}\t{row['item'].get(sort_key, '')}\t{json_text(row['item'])}"
                ),
            )
        return emit(tracked, args.output, lambda i: f"{i.get(sort_key, '')}\t{json_text(i)}")

    if args.checkpoint is not None:

        def commands_of(plan: Plan[QueryCall]) -> list[str]:
            return dynamodb_commands(args.table or "TABLE", plan, aws_options(args))

        return consume_checkpointed(args, session, table, commands_of, show, "items", **fields)
    if args.latest is not None:
        latest = {"since": args.since, "until": args.until, "cursor": args.cursor}
        items = table.latest(args.latest, **latest, index=args.index, **fields)
    else:
        items = table.query_window(args.since, args.until, **window, **fields)
    with items:
        count = show(items)
    stats = items.stats
    report(
        f"{counted(count, 'item')}, {counted(stats.calls, 'Query call')}, "
        f"{counted(stats.read, 'item')} read"
    )
    none_asked = 0 in (args.limit, args.latest)  # none asked for: nothing to explain
    if count == 0 and not none_asked and isinstance(entity, Entity):
        _hint_sort_keys(client, args, entity, fields)
    print_cursor(items.cursor)
    return 0


#: Sort keys a hint reads, at most (one Query).
HINT_KEYS = 20


def _hint_sort_keys(
    client: Any, args: argparse.Namespace, entity: Entity, fields: Mapping[str, Any]
) -> None:
    """After a query that found nothing: what the sort keys of its (first) partition look
    like and the ``--scheme`` that reads them, as ``ls`` hints for S3 (one bounded Query; a
    hint never fails the command)."""
    try:
        plan = entity.plan_window(index=args.index, **fields)
        call = plan.groups[0][0]
        request: dict[str, Any] = {
            "TableName": args.table,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": call.pk_attr, "#sk": call.sk_attr},
            "ExpressionAttributeValues": {":pk": {"S": call.partition}},
            "ProjectionExpression": "#sk",
            "Limit": HINT_KEYS,
        }
        if call.index is not None:
            request["IndexName"] = call.index
        page = client.query(**request)
        keys = [
            item[call.sk_attr]["S"] for item in page.get("Items", ()) if "S" in item[call.sk_attr]
        ]
        line = hints.sort_key_hint(call.partition, keys, entity.scheme.name, entity.separator)
    except Exception:  # the query's own answer stands; a failed look adds nothing
        return
    report(f"hint: {line}")
