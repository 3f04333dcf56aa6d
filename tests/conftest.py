"""Shared test set-up: the hypothesis profiles (profiles.py), one botocore data loader, in-process
moto run untraced under coverage, and the cyclic garbage collector tuned for a test run's heap."""

from __future__ import annotations

import gc

import botocore.loaders
import botocore.session
import pytest
from moto.core.botocore_stubber import BotocoreStubber
from profiles import register, untraced

register()


#: One botocore data loader for every session the tests make: botocore loads a service's JSON
#: models once per loader and treats them as read-only, and the tests make hundreds of sessions
#: (every CLI command makes its own, as a process would), each of which would load them again.
_LOADER = botocore.loaders.create_loader()


def _shared_data_loader(self: botocore.session.Session) -> None:
    self._components.lazy_register_component("data_loader", lambda: _LOADER)


botocore.session.Session._register_data_loader = _shared_data_loader  # type: ignore[method-assign]


#: In-process moto answers a request inside botocore's ``before-send`` event, in the thread
#: that sent it: under test-all's coverage that is a traced thread (Python 3.11 slows every
#: frame of it), though moto never runs the package's code. Untraced, the moto tests of every
#: scheme took 39.2 s under coverage instead of 55.6 s (same seed; 18.2 s without coverage),
#: with the same lines covered but for a few the threads' timing decides.
BotocoreStubber.__call__ = untraced(BotocoreStubber.__call__)  # type: ignore[method-assign]


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


#: A test run's heap is large and long-lived (botocore's models, moto's backends, hundreds of
#: test modules and hypothesis's strategies), and Python's default collector thresholds (700,
#: 10, 10) walk it again and again: a tenth of the CPU of the moto and CLI tests went to it.
#: Collecting the young generation after 10,000 new objects instead of 700 keeps the garbage a
#: test makes (moto backends are cyclic) collected within the test or the next one.
gc.set_threshold(10_000, 20, 20)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Put what collection built (the library, the test modules, their module-level data) out
    of the collector's walks: it lives until the run ends."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (in their collected order): pytest-xdist's workers then start on
    the long runs - a Spark session, a notebook, the demo, last in the collected order - and end
    on short tests, instead of one worker running a long test alone at the end while the other
    core idles. ``make test`` deselects them, so its order is the collected one."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
