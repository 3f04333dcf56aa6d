"""What the integrations that run other processes share: a moto server, with fake credentials
and a region set in this process's environment, which Dask workers and Spark executors inherit
(credentials never travel with the work)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from faults import moto_server


@pytest.fixture(scope="module")
def worker_endpoint() -> Iterator[str]:
    """The URL of a moto server the module's worker processes can reach."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        os.environ.setdefault(name, value)
    with moto_server() as url:
        yield url
