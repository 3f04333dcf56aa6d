"""Entity keys are injective for every separator and hold only characters that display as what
they are (issue 14 items 2 and 8): property tests over generated separators and values."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ulidkeys.dynamodb import Entity
from ulidkeys.errors import InvalidKeyField, InvalidKeyTemplate
from ulidkeys.ulid import ULID

ID = str(ULID.new(1_700_000_000_000))
# few characters, so that separators and values overlap often
CHARS = st.sampled_from(":#|ab")
# a separator that overlaps itself ("::", "aba") is where a value can end inside it
separators = st.one_of(
    st.sampled_from(["::", "##", ":::", "aba", "#:#"]), st.text(CHARS, min_size=1, max_size=3)
)
values = st.text(CHARS, min_size=1, max_size=5)


def entity(sep: str) -> Entity:
    return Entity(pk=f"Org{sep}{{org}}{sep}{{team}}", sk=f"Post{sep}{{id}}", separator=sep)


def keys_or_none(posts: Entity, org: str, team: str) -> dict[str, object] | None:
    try:
        return posts.keys(org=org, team=team, id=ID)
    except InvalidKeyField:
        return None


def test_the_issues_two_tenants_no_longer_share_a_key() -> None:
    posts = entity("::")
    assert posts.keys(org="acme", team=":x", id=ID)["PK"] == "Org::acme:::x"
    with pytest.raises(InvalidKeyField, match="org='acme:' ends with the start of the separator"):
        posts.keys(org="acme:", team="x", id=ID)


@given(sep=separators, org=values, team=values)
def test_keys_parse_back_to_their_fields(sep: str, org: str, team: str) -> None:
    posts = entity(sep)
    keys = keys_or_none(posts, org, team)
    assume(keys is not None)
    assert posts.parse(keys) == {"org": org, "team": team, "id": ID}


@given(sep=separators, f=st.tuples(values, values), g=st.tuples(values, values))
def test_different_fields_make_different_keys(
    sep: str, f: tuple[str, str], g: tuple[str, str]
) -> None:
    assume(f != g)
    posts = entity(sep)
    f_keys, g_keys = keys_or_none(posts, *f), keys_or_none(posts, *g)
    assume(f_keys is not None and g_keys is not None)
    assert f_keys != g_keys


@given(sep=separators, a=values, b=values, cut=st.integers(0, 2))
def test_of_all_ways_to_split_a_key_at_most_one_is_accepted(
    sep: str, a: str, b: str, cut: int
) -> None:
    """Two field values whose keys are one text are two splits of it at a separator; ``a``
    ends with a piece of the separator (``"acme:"`` with ``"::"``) to make overlaps likely."""
    posts = entity(sep)
    text = a + sep[: cut % len(sep)] + sep + b
    splits = [
        (text[:i], text[i + len(sep) :])
        for i in range(1, len(text))
        if text[i : i + len(sep)] == sep
    ]
    accepted = [split for split in splits if keys_or_none(posts, *split) is not None]
    assert len(accepted) <= 1, accepted


@pytest.mark.parametrize(
    "value", ["a\u202eb", "a\u2066b", "a\u2028b", "a\u2029b", "a\x00b", "a\u200bb", "\ufeffa"]
)
def test_key_fields_refuse_invisible_and_control_characters(value: str) -> None:
    with pytest.raises(InvalidKeyField, match="U\\+"):
        Entity(pk="Org#{org}", sk="Post#{id}").keys(org=value)


def test_templates_refuse_them_too() -> None:
    with pytest.raises(InvalidKeyTemplate, match="U\\+202E"):
        Entity(pk="Org\u202e#{org}", sk="Post#{id}")
    with pytest.raises(InvalidKeyTemplate, match="U\\+2028"):
        Entity(pk="Org\u2028{org}", sk="Post\u2028{id}", separator="\u2028")
