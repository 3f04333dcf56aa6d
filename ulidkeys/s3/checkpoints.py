"""A consumer checkpoint kept as an S3 object, committed with conditional writes.

The first commit sends ``IfNoneMatch="*"``, later ones ``IfMatch`` with the ETag loaded, so of
two consumers racing on one checkpoint exactly one commit is stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ulidkeys.engine.consuming import conflict
from ulidkeys.errors import InvalidValue, aws_error, describe
from ulidkeys.planning.checkpoints import Checkpoint
from ulidkeys.s3.bucket import require_bucket_name
from ulidkeys.s3.writing import CONFLICT_CODES

if TYPE_CHECKING:
    from types_boto3_s3 import S3Client


class S3CheckpointStore:
    """The checkpoint object ``s3://bucket/key`` (JSON)."""

    def __init__(self, client: S3Client, bucket: str, key: str) -> None:
        require_bucket_name(bucket, "bucket")
        if not isinstance(key, str) or not key:
            raise InvalidValue(f"key={describe(key)} must be a non-empty str")
        self.client, self.bucket, self.key = client, bucket, key

    def __repr__(self) -> str:
        return f"S3CheckpointStore('s3://{self.bucket}/{self.key}')"

    def load(self) -> tuple[Checkpoint | None, Any]:
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except Exception as error:
            if aws_error(error)[0] in ("NoSuchKey", "404"):
                return None, None
            raise
        text = response["Body"].read()
        source = f"checkpoint s3://{self.bucket}/{self.key}"
        return Checkpoint.from_json(text, source=source), response["ETag"]

    def save(self, checkpoint: Checkpoint, token: Any) -> Any:
        condition = {"IfNoneMatch": "*"} if token is None else {"IfMatch": token}
        try:
            response = self.client.put_object(
                Bucket=self.bucket,
                Key=self.key,
                Body=checkpoint.to_json().encode(),
                ContentType="application/json",
                **condition,
            )
        except Exception as error:
            code, status = aws_error(error)
            # 412: another commit changed it; 409: one is in flight; 404: it was deleted.
            if code in CONFLICT_CODES or code == "NoSuchKey" or status in (404, 409, 412):
                raise conflict(
                    f"s3://{self.bucket}/{self.key}",
                    "it exists" if token is None else f"ETag {token} expected",
                ) from None
            raise
        return response["ETag"]
