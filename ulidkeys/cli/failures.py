"""A failure as one line and an exit status: 2 for a mistake in the command or the AWS
set-up, 1 for what AWS reported (``--debug`` shows the traceback instead).
"""

from __future__ import annotations

import argparse
import os
import sys

from ulidkeys.cli.paths import WriteFailed
from ulidkeys.errors import ServiceError, UlidkeysError, aws_error

# --- failures ------------------------------------------------------------------------------------

_CONFIG_ERRORS = {  # botocore errors raised before anything is sent: the set-up is wrong
    "ProfileNotFound": "{error}; check --profile / AWS_PROFILE (`aws configure list-profiles`)",
    "NoCredentialsError": "no AWS credentials found; run `aws configure`, pass --profile, or "
    "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    "PartialCredentialsError": "{error}; check your AWS credentials (`aws configure`)",
    # botocore reads the region from AWS_DEFAULT_REGION (AWS_REGION only in AWS's own
    # runtimes, for its defaults mode), then from the profile's config
    "NoRegionError": "no AWS region is set; pass --region, set AWS_DEFAULT_REGION, or set "
    "region in your AWS config (`aws configure`)",
    "ParamValidationError": "AWS would refuse this request: {error}",
    "InvalidRegionError": "{error}; pass a region such as --region us-east-1",
}
_NETWORK_ERRORS = ("EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError")
_CREDENTIAL_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "UnrecognizedClientException",
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
    }
)


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _aws_message(code: str, error: BaseException, args: argparse.Namespace) -> str:
    said = error.response.get("Error", {}).get("Message") or code  # type: ignore[attr-defined]
    if code == "NoSuchBucket":
        where = _missing_bucket(error, args)
        return f"{where} (NoSuchBucket); check the bucket name and --region"
    if code == "ResourceNotFoundException":
        table = getattr(args, "table", None) or _table_of(getattr(args, "location", ""))
        return f"table {table!r} not found ({code}); check the table name and --region"
    if code == "ValidationException":
        return (
            f"DynamoDB refused the query ({code}: {said}); check that --pk-attr/--sk-attr "
            f"({args.pk_attr}/{args.sk_attr}) are the table's key attributes"
        )
    if code in _CREDENTIAL_CODES:
        return f"AWS refused the request ({code}: {said}); check your credentials and permissions"
    return f"AWS refused the request ({code}: {said})"


#: The flags that name an S3 object a command reads or writes besides what it lists.
_S3_TARGETS = ("checkpoint", "manifest")


def _missing_bucket(error: BaseException, args: argparse.Namespace) -> str:
    """``WHAT: no such bucket``, WHAT being what the NoSuchBucket is about: the
    ``--checkpoint`` or ``--manifest`` object whose bucket S3 names in the error
    (``BucketName``), else the location listed. Without a name (an S3-compatible store may
    omit it), a call other than a listing was to the first of them."""
    named = error.response.get("Error", {}).get("BucketName")  # type: ignore[attr-defined]
    listing = getattr(error, "operation_name", "") in ("ListObjectsV2", "HeadBucket")
    for flag in _S3_TARGETS:
        spec = getattr(args, flag, None)
        if not (isinstance(spec, str) and spec.startswith("s3://")):
            continue
        bucket = spec[len("s3://") :].partition("/")[0]
        listed = str(getattr(args, "location", "")).startswith(f"s3://{bucket}/")
        if (bucket == named and not (listed and listing)) or (named is None and not listing):
            return f"--{flag} {spec}: no such bucket {bucket!r}"
    return f"{getattr(args, 'location', '')}: no such bucket"


def failure(error: BaseException, args: argparse.Namespace) -> tuple[int, str]:
    """``(exit status, one line)`` for an error: 2 for a mistake in the command or the AWS
    set-up (nothing was sent), 1 for a failure AWS or the network reported."""
    if isinstance(error, (ServiceError, WriteFailed)):
        return 1, str(error)
    if isinstance(error, UlidkeysError):
        return 2, str(error)
    names = {cls.__name__ for cls in type(error).__mro__}
    for name, message in _CONFIG_ERRORS.items():
        if name in names:
            return 2, message.format(error=_one_line(error))
    if names.intersection(_NETWORK_ERRORS):
        where = args.endpoint_url or "AWS"
        return 1, f"could not reach {where} ({_one_line(error)}); check --endpoint-url, network"
    code, _status = aws_error(error)
    if code is not None:
        return 1, _aws_message(code, error, args)
    return 1, (
        f"unexpected {type(error).__name__}: {_one_line(error)} (run again with --debug for the "
        "traceback, and please report it)"
    )


def silence_stdout() -> None:
    """After a closed pipe (``| head``), send the rest to /dev/null: no second error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a captured stdout has no file descriptor
        pass


def _table_of(location: str) -> str:
    """The table of a ``dynamodb://TABLE`` location (the survey's), else the location."""
    return location.removeprefix("dynamodb://") if isinstance(location, str) else ""
