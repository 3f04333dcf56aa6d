"""What the integrations that run other processes share: a moto server, with fake credentials
and a region set in this process's environment, which Dask workers and Spark executors inherit
(credentials never travel with the work), and a ``local[2]`` SparkSession."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from faults import moto_server
from moto import mock_aws


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


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """In-process moto, with fake credentials and a region (what a source's executor code
    needs when it runs in this process)."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


@pytest.fixture(scope="module")
def spark(worker_endpoint: str) -> Iterator[Any]:
    """A ``local[2]`` SparkSession for the module, ``ulidkeys.s3`` and ``ulidkeys.dynamodb``
    registered, its Python workers running this virtualenv's Python (a test that takes it is
    ``slow``: it starts a JVM)."""
    pytest.importorskip("pyspark", reason="pyspark is not installed: pip install 'ulidkeys[spark]'")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (17+) and none is installed")
    from pyspark.sql import SparkSession  # only once pyspark is known to be there

    from ulidkeys.spark import register

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the executors run this virtualenv's Python
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ulidkeys-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    register(session)
    yield session
    session.stop()
