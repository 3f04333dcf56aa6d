"""The hypothesis profiles: each draws its share of CI's count, and the contributor's guide
says the figures profiles.py holds; what test-all runs untraced gets the trace function back."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hypothesis import settings
from profiles import CI_EXAMPLES, SHARES, examples_in, untraced

GUIDE = Path(__file__).parent.parent / "docs" / "project" / "contributing.md"


def test_each_profile_draws_its_share_of_cis_count() -> None:
    assert [examples_in("ci", n) for n in (1, 3, 40)] == [2, 3, 40]
    assert [examples_in("dev", n) for n in (1, 3, 40, 150)] == [2, 2, 14, 53]
    assert examples_in("thorough", 40) == 1200
    for name in SHARES:
        assert settings.get_profile(name).max_examples == examples_in(name, CI_EXAMPLES)


def test_the_guide_says_the_profiles_figures() -> None:
    text = " ".join(GUIDE.read_text().split())
    assert f"A test that sets no count draws {CI_EXAMPLES} in CI" in text
    assert SHARES["thorough"] == 30 and "thirty times" in text
    assert round(1 / SHARES["dev"]) == 3 and "about a third" in text


def test_untraced_runs_the_call_without_the_trace_function_and_gives_it_back() -> None:
    """What test-all leaves untraced (moto's answers, the fakes' pages) runs with no trace
    function, and the caller's comes back after it, in the same thread."""
    called: list[str] = []

    def tracer(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            called.append(frame.f_code.co_name)

    def answer() -> Any:
        return sys.gettrace()

    wrapped = untraced(answer)
    before = sys.gettrace()  # coverage's, in test-all's covered run
    sys.settrace(tracer)
    try:
        during = wrapped()
        after = sys.gettrace()
    finally:
        sys.settrace(before)
    assert during is None
    assert after is tracer
    assert "run" in called and "answer" not in called
