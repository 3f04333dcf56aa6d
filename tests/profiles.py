"""The suite's hypothesis profiles, how many examples a property test draws in each, and what
test-all runs without coverage's tracing: the slow cases that repeat traced code, and the
fakes' and moto's own code (:func:`untraced`).

A property test that sets its own count writes the count CI draws, ``examples(n)``; the
profile scales it: ``ci`` (``make test-all``, CI) draws ``n``, ``dev`` (``make test``, the loop
a contributor waits on) a share of it, ``thorough`` many times it. Tests that set no count draw
the profile's own ``max_examples``, which is the same share of CI's 60.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings

#: Each profile's examples as a share of CI's.
SHARES = {"ci": 1.0, "dev": 0.35, "thorough": 30.0}
#: The count of a test that sets none, in CI.
CI_EXAMPLES = 60
#: The marks of a slow case that repeats, over more schemes, shapes or draws, code that the
#: traced cases of the same test (``make test``'s) already run: test-all runs it, and coverage
#: does not trace it (pytest-cov's ``no_cover``). Tracing per-key code costs two to eight times
#: its run time (these 115 cases: 295 s of the covered run's workers traced, 112 s not) and adds
#: no line: with these untraced, the covered run misses the same lines as with them traced
#: (but for a few that hypothesis's draws reach in one run and not the next).
UNTRACED_SLOW = (pytest.mark.slow, pytest.mark.no_cover)
#: The profile of this run (``HYPOTHESIS_PROFILE``; ``dev`` when unset).
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
if PROFILE not in SHARES:
    raise ValueError(f"HYPOTHESIS_PROFILE={PROFILE!r} is not one of {sorted(SHARES)}")


def examples(n: int) -> int:
    """The examples a property test that CI runs with ``n`` examples draws in this run's
    profile."""
    return examples_in(PROFILE, n)


def register() -> None:
    """Register the three profiles and load this run's."""
    settings.register_profile(
        "ci",
        max_examples=CI_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    for name in ("dev", "thorough"):
        settings.register_profile(name, max_examples=examples_in(name, CI_EXAMPLES), deadline=None)
    settings.load_profile(PROFILE)


def examples_in(profile: str, n: int) -> int:
    """The examples of ``n`` in CI that ``profile`` draws (at least 2, so that a dev run
    still tries more than its first draw)."""
    return max(2, math.ceil(n * SHARES[profile]))


Call = TypeVar("Call", bound=Callable[..., Any])


def untraced(call: Call) -> Call:
    """``call`` run without the thread's trace function, which is restored after it: for code
    that never runs the package's (moto's, the fakes' pages), whose tracing under test-all's
    coverage costs time and measures nothing. Python 3.11 runs every frame of a thread that has
    a trace function slower, traced file or not."""

    @functools.wraps(call)
    def run(*args: Any, **kwargs: Any) -> Any:
        tracer = sys.gettrace()
        if tracer is None:
            return call(*args, **kwargs)
        sys.settrace(None)
        try:
            return call(*args, **kwargs)
        finally:
            sys.settrace(tracer)  # coverage's tracer takes itself back at the next call

    return run  # type: ignore[return-value]
