"""A consumer checkpoint kept as a DynamoDB item, committed with conditional writes.

The item holds the checkpoint's JSON and its commit sequence; a commit writes only where the
item does not exist yet (the first) or still has the sequence loaded, so one racer wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ulidkeys.dynamodb.clients import Target, item_key
from ulidkeys.engine.consuming import conflict
from ulidkeys.errors import InvalidCheckpoint, aws_error
from ulidkeys.planning.checkpoints import Checkpoint

#: Attributes of the checkpoint item besides its key.
BODY, SEQUENCE = "checkpoint", "sequence"


class DynamoCheckpointStore:
    """The checkpoint item with primary key ``key`` (e.g. ``{"PK": "Consumer#thumbs",
    "SK": "Checkpoint"}``) in a table given as for :class:`~ulidkeys.dynamodb.Table`."""

    def __init__(
        self, table_or_client: Any, key: Mapping[str, str], *, table_name: str | None = None
    ) -> None:
        self.key = item_key(key, (BODY, SEQUENCE))
        self.target = Target.resolve(table_or_client, table_name)

    def __repr__(self) -> str:
        return f"DynamoCheckpointStore({self.target.table_name!r}, {self.key!r})"

    def load(self) -> tuple[Checkpoint | None, Any]:
        target = self.target
        response = target.client.get_item(
            TableName=target.table_name, Key=target.item(self.key), ConsistentRead=True
        )
        raw = response.get("Item")
        if raw is None:
            return None, None
        item = target.to_plain(raw)
        text = item.get(BODY)
        source = f"checkpoint item {self.key} of {target.table_name}"
        if not isinstance(text, str):
            raise InvalidCheckpoint(f"{source} has no {BODY!r} string attribute; it is damaged")
        checkpoint = Checkpoint.from_json(text, source=source)
        if item.get(SEQUENCE) != checkpoint.sequence:
            raise InvalidCheckpoint(f"{source}: its {SEQUENCE!r} disagrees with its JSON")
        return checkpoint, checkpoint.sequence

    def save(self, checkpoint: Checkpoint, token: Any) -> Any:
        target = self.target
        item = {**self.key, BODY: checkpoint.to_json(), SEQUENCE: checkpoint.sequence}
        first = next(iter(self.key))
        if token is None:
            condition = "attribute_not_exists(#k)"
            names = {"#k": first}
            values: dict[str, Any] = {}
        else:
            condition = "#s = :old"
            names = {"#s": SEQUENCE}
            values = {":old": target.value(token)}
        args: dict[str, Any] = {
            "TableName": target.table_name,
            "Item": target.item(item),
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
        }
        if values:
            args["ExpressionAttributeValues"] = values
        try:
            target.client.put_item(**args)
        except Exception as error:
            if aws_error(error)[0] != "ConditionalCheckFailedException":
                raise
            raise conflict(
                f"item {self.key} of {target.table_name}",
                "it exists" if token is None else f"commit #{token} expected",
            ) from None
        return checkpoint.sequence
