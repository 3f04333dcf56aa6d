"""examples/consume_lambda.py against moto: scheduled invocations process every upload once,
and one that runs out of time commits what it did and leaves the rest to the next."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

from ulidkeys import base32

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "consume_lambda.py"
T0 = 1_715_936_400_000
MINUTE = 60_000


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("consume_lambda", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Context:
    """A Lambda context whose time runs out after ``budget`` calls to the clock."""

    def __init__(self, budget: int = 10**9) -> None:
        self.budget = budget

    def get_remaining_time_in_millis(self) -> int:
        self.budget -= 1
        return 60_000 if self.budget > 0 else 1_000


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("BUCKET", "uploads-bucket")
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="uploads-bucket")
        yield client


def test_scheduled_invocations_process_every_upload_once(s3: Any) -> None:
    example = load_example()
    layout = example.LAYOUT
    keys = [layout.key_for(base32.encode_time(T0 + n * 700) + "0" * 16) for n in range(200)]
    clock = {"ms": T0}
    results = []
    for minute in range(1, 6):
        clock["ms"] = T0 + minute * MINUTE
        for key in keys:
            if T0 + (minute - 1) * MINUTE <= layout.parse(key).ms < clock["ms"]:
                s3.put_object(Bucket="uploads-bucket", Key=key, Body=b"jpg")
        # the third invocation runs out of time after 10 objects
        context = Context(budget=10) if minute == 3 else Context()
        event = {"since": T0}
        results.append(example.handler(event, context, s3=s3, now=lambda: clock["ms"]))
    assert results[2]["processed"] == 10 and not results[2]["finished"]
    clock["ms"] += 2 * MINUTE
    results.append(example.handler({}, Context(), s3=s3, now=lambda: clock["ms"]))
    assert sum(r["processed"] for r in results) == len(keys)  # each once
    done = s3.list_objects_v2(Bucket="uploads-bucket", Prefix="processed/")["Contents"]
    assert sorted(o["Key"] for o in done) == sorted(f"processed/{k}.done" for k in keys)
