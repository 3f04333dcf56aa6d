"""The hypothesis profiles: each draws its share of CI's count, and the contributor's guide
says the figures profiles.py holds."""

from __future__ import annotations

from pathlib import Path

from hypothesis import settings
from profiles import CI_EXAMPLES, SHARES, examples_in

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
