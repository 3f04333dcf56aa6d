"""Plans as AWS CLI commands: the ``aws s3api list-objects-v2`` and ``aws dynamodb query`` lines
that make the same calls as a plan, shell-quoted so they can be pasted (``--explain`` prints
them). Pure text work: tests run the lines with the real AWS CLI against moto's HTTP server.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.plans import Plan
from ulidkeys.planning.queries import QueryCall


def shell_join(args: Sequence[str]) -> str:
    """One POSIX shell line running ``args`` exactly (each argument quoted where needed)."""
    return " ".join(shlex.quote(arg) for arg in args)


def jmespath_literal(text: str) -> str:
    """``text`` as a JMESPath JSON literal: `` `"..."` ``, ASCII only (``\\uXXXX`` escapes), so
    any key survives the shell, the terminal and the AWS CLI unchanged."""
    return "`" + json.dumps(text).replace("`", "\\`") + "`"


def list_command(
    bucket: str, call: ListCall, suffix: str = "", options: Sequence[str] = ()
) -> list[str]:
    """The arguments of ``aws s3api list-objects-v2`` for one chain of an S3 plan.

    S3 takes no end key, so the chain's stop bound (and the exact ``suffix``, if any) become a
    client-side ``--query`` filter; the AWS CLI follows every page of the prefix.
    """
    args = ["aws", "s3api", "list-objects-v2", "--bucket", bucket]
    if call.prefix:
        args += ["--prefix", call.prefix]
    if call.delimiter is not None:
        args += ["--delimiter", call.delimiter]
    if call.start_after is not None and call.ordered:
        args += ["--start-after", call.start_after]
    tests = []
    if call.ordered and call.stop_at is not None:
        tests.append(f"Key < {jmespath_literal(call.stop_at)}")
    if suffix:
        tests.append(f"ends_with(Key, {jmespath_literal(suffix)})")
    query = "Contents[?" + " && ".join(tests) + "]" if tests else "Contents[]"
    return [*args, "--query", query, "--output", "json", *options]


def query_command(
    table: str, call: QueryCall, limit: int | None = None, options: Sequence[str] = ()
) -> list[str]:
    """The arguments of ``aws dynamodb query`` for one call of a DynamoDB plan.

    The values go as inline JSON with ASCII escapes: the exclusive upper bound's
    ``U+10FFFF`` fill is typed as ``\\udbff\\udfff`` and decoded by the CLI's JSON parser.
    """
    request = call.request(table)
    args = [
        "aws",
        "dynamodb",
        "query",
        "--table-name",
        table,
        "--key-condition-expression",
        request["KeyConditionExpression"],
        "--expression-attribute-names",
        json.dumps(request["ExpressionAttributeNames"], sort_keys=True),
        "--expression-attribute-values",
        json.dumps(request["ExpressionAttributeValues"], sort_keys=True),
    ]
    if "IndexName" in request:
        args += ["--index-name", request["IndexName"]]
    if not request["ScanIndexForward"]:
        args.append("--no-scan-index-forward")
    if limit is not None:
        args += ["--max-items", str(limit)]
    return [*args, "--output", "json", *options]


def _notes(count: int, merged: str) -> list[str]:
    if count <= 1:
        return []
    return [f"# {count} commands: {merged}"]


def s3_commands(
    bucket: str, plan: Plan[ListCall], suffix: str = "", options: Sequence[str] = ()
) -> list[str]:
    """Shell lines for every chain of an S3 plan, with ``#`` notes where one line is not all;
    ``options`` (``--endpoint-url ...``, ``--region ...``) go on every line.

    The lines select the plan's key ranges (and ``suffix``); ``ulidkeys ls`` also drops keys
    that only look like keys of the layout (an id with letters no ULID has).
    """
    calls = plan.calls
    lines = _notes(len(calls), "merge their keys by the id to get the listing's order")
    if any(not call.ordered for call in calls):
        lines.append("# a directory bucket lists unordered: keep the window's keys and sort them")
    if not calls:
        lines.append("# no command: nothing can be in this window")
    lines += [shell_join(list_command(bucket, call, suffix, options)) for call in calls]
    return lines


def dynamodb_commands(table: str, plan: Plan[QueryCall], options: Sequence[str] = ()) -> list[str]:
    """Shell lines for every ``Query`` of a DynamoDB plan (``options`` as for S3)."""
    calls = plan.calls
    lines = _notes(len(calls), "run them in order (shards: merge by the id)")
    if plan.limit is not None and len(calls) > 1:
        lines.append(f"# --max-items applies to each command; keep the first {plan.limit} in all")
    if not calls:
        lines.append("# no command: nothing can be in this window")
    lines += [shell_join(query_command(table, call, plan.limit, options)) for call in calls]
    return lines
