"""Presigned URLs signed with SigV4 whatever client the caller built, on the regional endpoint.

boto3 presigns S3 requests with SigV2 unless the client was built with ``signature_version=
"s3v4"``, and SigV2 signs no headers: an ``If-None-Match: *`` the library promises would not bind
the uploader. So presigning uses its own client of the caller's credentials, region and endpoint,
configured for SigV4 and the bucket's regional virtual-hosted host (the global host redirects).
"""

from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, cast
from urllib.parse import urlsplit

from ulidkeys.errors import UnsupportedClient, describe

#: The hosts of AWS's own S3 endpoints: a client built for one of them signs for the bucket's
#: regional host instead; any other endpoint (moto, MinIO, a proxy) is kept as the caller set it.
AWS_HOST_SUFFIXES = (".amazonaws.com", ".amazonaws.com.cn")

#: SigV4's longest validity, in seconds (7 days): S3 refuses a presigned URL asking for more.
MAX_EXPIRES = 604_800

#: The caller's S3 settings a signer keeps: they change the host a browser must reach.
_KEPT_S3_SETTINGS = ("use_accelerate_endpoint", "use_dualstack_endpoint")

_creating = threading.Lock()  # a botocore session must not create two clients at once


@cache
def _session() -> Any:
    """The botocore session signers are made from (its service models load once)."""
    import botocore.session  # boto3 is an optional extra: importing ulidkeys.s3 needs none

    return botocore.session.get_session()


@dataclass(frozen=True)
class SigningSetup:
    """What a signing client is made of: frozen credentials, region, endpoint, S3 settings."""

    access_key: str
    secret_key: str
    token: str | None
    region: str
    endpoint_url: str | None
    s3_settings: tuple[tuple[str, Any], ...]


def credentials_of(client: Any) -> Any:
    """The credentials object a botocore/aiobotocore client signs with (refreshable ones
    included: each presign reads its current frozen credentials)."""
    config = getattr(getattr(client, "meta", None), "config", None)
    if config is None:
        raise UnsupportedClient(f"{describe(client)} is not a boto3 S3 client")
    if config.signature_version is _unsigned():
        raise UnsupportedClient(
            "the S3 client is unsigned (signature_version=UNSIGNED): presigning needs "
            "credentials; build the client without that setting"
        )
    credentials = getattr(getattr(client, "_request_signer", None), "_credentials", None)
    if credentials is None:
        raise UnsupportedClient(
            f"{describe(client)} has no credentials to sign with; configure AWS credentials "
            "(environment, profile or role) before presigning"
        )
    return credentials


def _unsigned() -> object:
    from botocore import UNSIGNED

    return UNSIGNED


def _custom_endpoint(client: Any) -> str | None:
    """The endpoint the caller chose (``endpoint_url=``, ``AWS_ENDPOINT_URL``), or None for AWS's
    own, which the signer replaces with the regional host."""
    builtins = getattr(getattr(client, "_ruleset_resolver", None), "_builtins", None)
    if isinstance(builtins, dict):
        chosen = builtins.get("SDK::Endpoint")
        return chosen if isinstance(chosen, str) else None
    url = str(client.meta.endpoint_url)  # older botocore: judge by the host
    host = urlsplit(url).hostname or ""
    return None if host.endswith(AWS_HOST_SUFFIXES) else url


def signing_setup(client: Any, frozen: Any) -> SigningSetup:
    """The setup of a SigV4 signer for ``client``, given its current frozen credentials."""
    region = client.meta.region_name
    if not isinstance(region, str) or not region or region == "aws-global":
        raise UnsupportedClient(
            f"the S3 client has region {region!r}: SigV4 signs for one region; build the client "
            "with region_name= the bucket's region"
        )
    endpoint = _custom_endpoint(client)
    s3 = dict(client.meta.config.s3 or {})
    if endpoint is None:
        # AWS: the bucket's regional host. "virtual" is what keeps botocore off the global
        # host when presigning; a name with dots falls back to path style on that same host.
        kept = {name: s3[name] for name in _KEPT_S3_SETTINGS if name in s3}
        s3 = {**kept, "addressing_style": "virtual", "us_east_1_regional_endpoint": "regional"}
    return SigningSetup(
        access_key=frozen.access_key,
        secret_key=frozen.secret_key,
        token=frozen.token,
        region=region,
        endpoint_url=endpoint,
        s3_settings=tuple(sorted(s3.items())),
    )


@lru_cache(maxsize=32)
def signer_for(setup: SigningSetup) -> Any:
    """A botocore S3 client that presigns with SigV4 (made once per setup: new frozen
    credentials after a refresh make a new one)."""
    from botocore.config import Config

    config = Config(signature_version="s3v4", s3=cast(Any, dict(setup.s3_settings)))
    with _creating:
        return _session().create_client(
            "s3",
            region_name=setup.region,
            endpoint_url=setup.endpoint_url,
            aws_access_key_id=setup.access_key,
            aws_secret_access_key=setup.secret_key,
            aws_session_token=setup.token,
            config=config,
        )


def signer(client: Any) -> Any:
    """The SigV4 signing client for a blocking boto3 S3 client."""
    frozen = credentials_of(client).get_frozen_credentials()
    if inspect.isawaitable(frozen):  # an aiobotocore client: see AsyncBucket
        frozen.close()  # type: ignore[attr-defined]
        raise UnsupportedClient(
            "this S3 client reads its credentials asynchronously (aiobotocore): presign with "
            "ulidkeys.aio.AsyncBucket"
        )
    return signer_for(signing_setup(client, frozen))
