"""Key characters (issue 14 item 8): a layout refuses prefixes and suffixes that make keys
resolve as other paths when downloaded (backslash or percent-encoded dot segments, roots) or
display as other text (bidirectional overrides, line separators, invisible characters)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys.errors import InvalidKeyPart, InvalidLayout, KeyMismatch
from ulidkeys.s3 import KeyLayout
from ulidkeys.ulid import ULID


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"prefix": "..\\..\\win\\"}, "path segment '..'"),
        ({"suffix": "\\..\\x"}, "path segment '..'"),
        ({"prefix": "%2e%2e/"}, "'..' \\(percent-decoded\\)"),
        ({"prefix": "a/%2E%2e%2Fb/"}, "percent-decoded"),
        ({"prefix": "%252e%252e/"}, "percent-decoded"),
        ({"prefix": "a/.. /"}, "path segment '.. '"),
        ({"prefix": "\\share\\"}, "path root"),
        ({"prefix": "C:\\data\\"}, "path root"),
        ({"prefix": "up\u202eloads/"}, "U\\+202E"),
        ({"prefix": "up\u2067/"}, "U\\+2067"),
        ({"prefix": "up\u2028/"}, "line separator"),
        ({"suffix": "\u2029.txt"}, "paragraph separator"),
        ({"suffix": "\u200b.txt"}, "U\\+200B"),
        ({"prefix": "\ufeffa/"}, "U\\+FEFF"),
    ],
)
def test_layouts_refuse_keys_unsafe_to_download_or_show(kwargs: dict[str, str], words: str) -> None:
    with pytest.raises(InvalidLayout, match=words):
        KeyLayout(**kwargs)  # type: ignore[arg-type]


def test_keys_the_rule_keeps_are_ordinary() -> None:
    for prefix in ("uploads/", "tenant/acme/", "a.b/c..d/", "x/...y/", "photos 2024/", "ü/é/"):
        layout = KeyLayout(prefix, suffix=".tar.gz")
        assert layout.fits(layout.new_key())


def test_parse_refuses_what_a_layout_would_never_build() -> None:
    layout = KeyLayout("u/")
    key = layout.key_for(ULID.new(1_700_000_000_000))
    with pytest.raises(KeyMismatch, match="U\\+202E"):
        layout.parse(key + "\u202e")
    with pytest.raises(InvalidKeyPart, match="ext="):
        layout.key_for(key[2:], ext="\u202egpj.exe")


refused = st.sampled_from(["\u202a", "\u202e", "\u2066", "\u2069", "\u2028", "\u2029", "\x1b"])


@given(head=st.text(st.sampled_from("ab/"), max_size=4), bad=refused)
def test_every_refused_character_is_refused_anywhere_in_a_prefix(head: str, bad: str) -> None:
    with pytest.raises(InvalidLayout):
        KeyLayout("p/" + head + bad + "/")
