"""Where a boto3 client connects, as data that travels to other processes (Dask workers, Spark
executors): the region and a custom endpoint. Credentials never travel: each process takes its
own (environment, profile, instance role).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import boto3


@dataclass(frozen=True)
class ClientSettings:
    """Where a worker's boto3 client connects: the region and a custom endpoint (None: AWS).
    Credentials do not travel: each worker takes its own (environment, profile, role)."""

    region: str | None
    endpoint_url: str | None

    @classmethod
    def of(cls, client: Any) -> ClientSettings:
        """The settings of a boto3 client (a custom endpoint is kept, AWS's is not)."""
        endpoint = client.meta.endpoint_url
        custom = endpoint if endpoint and ".amazonaws.com" not in endpoint else None
        return cls(client.meta.region_name, custom)

    def s3(self) -> Any:
        """A worker's S3 client."""
        return boto3.client("s3", region_name=self.region, endpoint_url=self.endpoint_url)

    def dynamodb(self) -> Any:
        """A worker's DynamoDB client."""
        return boto3.client("dynamodb", region_name=self.region, endpoint_url=self.endpoint_url)
