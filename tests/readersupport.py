"""What the page readers' tests know of the botocore they run on (the suite runs on the locked
botocore, and on the oldest and the newest the package allows: ``nox -s botocore_oldest``,
``botocore_newest``): whether its endpoint emits ``before-parse``, and its retry modes.

Written from botocore's own history, not from the library's code, so a test comparing the
library's answer with these is not comparing it with itself.
"""

from __future__ import annotations

from typing import Any

import boto3
import botocore
import pytest
from botocore.config import Config

#: The botocore release installed, as numbers.
BOTOCORE = tuple(int(part) for part in botocore.__version__.split(".")[:3])
#: botocore's endpoint emits ``before-parse`` from 1.35.16 on (and aiobotocore's from 2.15.0,
#: the first release on botocore 1.35.16): below it no page reader can run.
BEFORE_PARSE = BOTOCORE >= (1, 35, 16)
#: Where the readers cannot run, tests of what they do when they read are skipped with this.
needs_before_parse = pytest.mark.skipif(
    not BEFORE_PARSE,
    reason=f"botocore {botocore.__version__} emits no before-parse (1.35.16 and later do): "
    "the page readers are never installed here, and fast_pages is False (checked by the "
    "fast_pages tests)",
)
#: botocore's retry modes: ``legacy`` (the default before botocore 1.44), ``standard`` (the
#: default from 1.44 on, and AWS's advice), ``adaptive``; None: the default of the botocore
#: installed (and of ``AWS_RETRY_MODE``).
RETRY_MODES = (None, "legacy", "standard", "adaptive")
CREDENTIALS = {"region_name": "us-east-1", "aws_access_key_id": "k", "aws_secret_access_key": "s"}


def retry_config(mode: str | None, **retries: Any) -> Config:
    """A client Config with the retry ``mode`` (None: botocore's default) and ``retries``."""
    if mode is not None:
        retries["mode"] = mode
    return Config(retries=retries) if retries else Config()


def client_in_mode(service: str, mode: str | None, **options: Any) -> Any:
    """A boto3 client of ``service`` in the retry ``mode``, checked to be in it."""
    client = boto3.client(service, config=retry_config(mode), **{**CREDENTIALS, **options})
    if mode is not None:
        assert client.meta.config.retries["mode"] == mode
    return client
