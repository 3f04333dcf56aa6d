"""Shared test set-up: the hypothesis profiles (profiles.py) and one botocore data loader."""

from __future__ import annotations

import botocore.loaders
import botocore.session
import pytest
from profiles import register

register()


#: One botocore data loader for every session the tests make: botocore loads a service's JSON
#: models once per loader and treats them as read-only, and the tests make hundreds of sessions
#: (every CLI command makes its own, as a process would), each of which would load them again.
_LOADER = botocore.loaders.create_loader()


def _shared_data_loader(self: botocore.session.Session) -> None:
    self._components.lazy_register_component("data_loader", lambda: _LOADER)


botocore.session.Session._register_data_loader = _shared_data_loader  # type: ignore[method-assign]


#: What tests set for boto3: fake credentials and a region, never a real account.
TEST_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture
def aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake AWS credentials and a region in the environment, for boto3 and the CLI."""
    for name, value in TEST_AWS_ENV.items():
        monkeypatch.setenv(name, value)
