"""The code the fast DynamoDB page reader compiles per item shape (the shapes of
:mod:`ulidkeys.dynamodb.pages`) against botocore's parser and boto3's TypeDeserializer:
pages whose items come again in a few shapes, with values that keep a shape, change it (another
type, another JSON type, names in another order) or break DynamoDB's forms, read to the same
values by a fresh reader and by one that compiled shapes on earlier pages; and a map of
another shape is never changed before the compiled code gives it up."""

from __future__ import annotations

import copy
import json
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from test_dynamodb_pages import blobs, botocore_reads, exact, numbers, plain, texts, values

from ulidkeys.dynamodb import pages as itemshapes
from ulidkeys.dynamodb.pages import READS, PageReader, ShapeMiss, _boto3_reader, compile_shape

QUERY = READS["Query"][1]
#: Names a compiled function holds as literals: quotes, escapes, line ends, a lone surrogate.
odd_names = st.sampled_from(["'", '"', "\\", "\n", "'''", '"""', "\ud800", "a b", "item", "v0"])
names = st.text(max_size=4) | odd_names | st.sampled_from(["S", "N", "PK", "SK", "meta"])
#: A new value of each type (nested values from the generic strategy).
of_tag = {
    "S": texts,
    "N": numbers,
    "B": blobs,
    "BOOL": st.booleans(),
    "NULL": st.just(True),
    "SS": st.lists(texts, min_size=1, max_size=4, unique=True),
    "NS": st.lists(numbers, min_size=1, max_size=4),
    "BS": st.lists(blobs, min_size=1, max_size=4),
    "M": st.dictionaries(names, values, max_size=3),
    "L": st.lists(values, max_size=3),
}
#: Values not of DynamoDB's forms: the whole page is botocore's.
HOSTILE: list[Any] = [
    {"S": 1},
    {"N": 1},
    {"N": 1.5},
    {"B": 7},
    {"S": "x", "N": "1"},
    {},
    {"BOOL": "x"},
    {"NULL": None},
    {"SS": ["a", 1]},
    {"NS": [1]},
    {"BS": ["AAE=", None]},
    {"SS": "ab"},
    {"M": []},
    {"L": {}},
    {"X": "a"},
    "S",
    ["S"],
    None,
    {"M": {"a": {"S": 1}}},
    {"L": [{"N": 5}]},
    {"B": "A"},  # bad padding
]
SHARED = _boto3_reader()  # compiles shapes across examples, as a client's reader does


def tag_of(value: dict[str, Any]) -> str:
    (tag,) = value
    return tag


@st.composite
def shaped_pages(draw: Any) -> tuple[bytes, bool]:
    """A Query answer whose items are variants of one template (and whether a value not of
    DynamoDB's forms was put in)."""
    template = draw(st.dictionaries(names, values, min_size=1, max_size=6))
    hostile = False
    page = []
    for _ in range(draw(st.integers(2, 12))):
        item = {}
        for name, value in template.items():
            change = draw(st.integers(0, 19))
            if change < 12:  # the same type, another value
                tag = tag_of(value)
                item[name] = {tag: draw(of_tag[tag])}
            elif change < 18:  # another type
                item[name] = draw(values)
            elif change == 18:  # names in another order
                item[name] = value
                item = dict(draw(st.permutations(list(item.items()))))
            else:
                item[name] = draw(st.sampled_from(HOSTILE))
                hostile = True
        page.append(item)
    body = json.dumps({"Items": page, "Count": len(page)}).encode()
    return body, hostile


def check_page(reader: PageReader, body: bytes, hostile: bool) -> None:
    expected = None if hostile else botocore_reads(body)["Items"]
    typed = reader.read(body, "Items", QUERY, plain=False)
    if hostile:
        assert typed is None
        assert reader.read(body, "Items", QUERY, plain=True) is None
        return
    assert typed is not None
    assert exact(typed.typed) == exact(expected)
    try:
        wanted = [plain(one) for one in expected]
    except ArithmeticError:  # a number beyond DynamoDB's: boto3 raises, botocore reads it
        assert reader.read(body, "Items", QUERY, plain=True) is None
        return
    both = reader.read(body, "Items", QUERY, plain=True)
    assert both is not None
    assert exact(both.plain) == exact(wanted)
    assert exact(both.typed) == exact(expected)


@settings(max_examples=examples(150))
@given(shaped_pages())
def test_pages_of_repeated_shapes_read_as_botocore_reads_them(page: tuple[bytes, bool]) -> None:
    body, hostile = page
    check_page(_boto3_reader(), body, hostile)  # shapes compiled on this page
    check_page(SHARED, body, hostile)  # and on the pages before


@settings(max_examples=examples(150))
@given(st.dictionaries(names, values, max_size=6), st.data())
def test_compiled_code_converts_its_shape_and_changes_nothing_of_another(
    sample: dict[str, Any], data: Any
) -> None:
    """One map converted by the code compiled for another of its names: the values boto3
    makes of it, or given up with the map untouched (then the generic conversion reads it)."""
    other = {
        name: data.draw(st.sampled_from([value, *HOSTILE]) | values)
        for name, value in sample.items()
    }
    if data.draw(st.booleans()):
        other = {name: {tag_of(v): data.draw(of_tag[tag_of(v)])} for name, v in sample.items()}
    reader = _boto3_reader()
    for plain_wanted in (True, False):
        env: dict[str, Any] = {"number": reader.number, "binary": reader.binary}
        env.update(blob=reader.blob, convert_value=reader.plain_value)
        convert_map = reader.plain_map if plain_wanted else reader.typed_map
        env["converter"] = lambda convert_map=convert_map: convert_map
        if not plain_wanted:
            env["convert_value"] = typed_value_of(reader)
        convert = compile_shape(tuple(sample), copy.deepcopy(sample), plain_wanted, env)
        assert convert is not None
        given_map = copy.deepcopy(other)
        try:
            out = convert(given_map)
        except (ShapeMiss, KeyError, TypeError):
            assert given_map == other  # nothing changed: the generic conversion reads it
            continue
        except Exception:  # a value the generic conversion refuses too: botocore's page
            body = json.dumps({"Items": [other]}).encode()
            assert _boto3_reader().read(body, "Items", QUERY, plain=plain_wanted) is None
            continue
        body = json.dumps({"Items": [other]}).encode()
        (expected,) = botocore_reads(body)["Items"]
        assert exact(given_map) == exact(expected)  # blobs decoded in place, as botocore's
        assert exact(out) == exact(plain(expected) if plain_wanted else expected)


def typed_value_of(reader: PageReader) -> Any:
    """The reader's typed conversion of one value (the one its compiled code calls)."""
    return lambda value: reader.typed_map({"v": value})


def test_a_blob_before_the_attribute_that_differs_does_not_lose_the_page() -> None:
    """The shape is compiled from the second item; the third differs after a blob. Were the
    blob decoded before the code gave the item up, the generic conversion would meet bytes
    where DynamoDB sends base64 and leave the page to botocore."""
    items = [
        {"b": {"B": "AAE="}, "bs": {"BS": ["AAI="]}, "x": {"S": "a"}},
        {"b": {"B": "AAM="}, "bs": {"BS": ["AAQ="]}, "x": {"S": "b"}},
        {"b": {"B": "AAU="}, "bs": {"BS": ["AAY="]}, "x": {"N": "3"}},
        {"b": {"B": "AAc="}, "bs": {"BS": ["AAg="]}, "x": {"S": "c", "N": "1"}},  # not a form
    ]
    good = json.dumps({"Items": items[:3], "Count": 3}).encode()
    check_page(_boto3_reader(), good, hostile=False)
    check_page(_boto3_reader(), json.dumps({"Items": items}).encode(), hostile=True)


def count_compiled(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The names of every shape compiled from now on, in order (the real compiler still runs)."""
    compiled: list[tuple[str, ...]] = []
    real = itemshapes.compile_shape

    def counting(names: tuple[str, ...], *args: Any) -> Any:
        compiled.append(names)
        return real(names, *args)

    monkeypatch.setattr(itemshapes, "compile_shape", counting)
    return compiled


def test_the_compiled_code_is_what_reads_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages above go through compiled code (else they test the generic conversion)."""
    compiled = count_compiled(monkeypatch)
    item = {"a": {"S": "x"}, "m": {"M": {"n": {"N": "1"}}}}
    body = json.dumps({"Items": [item] * 3}).encode()
    for plain_wanted in (False, True):
        assert _boto3_reader().read(body, "Items", QUERY, plain=plain_wanted) is not None
    assert compiled == [("a", "m"), ("n",)] * 2


@pytest.mark.parametrize("width", [itemshapes.MAX_ATTRIBUTES, itemshapes.MAX_ATTRIBUTES + 1])
def test_wide_items_and_many_shapes(width: int) -> None:
    """Maps too wide to compile, and more shapes than are compiled, read the same."""
    wide = {f"a{i}": {"N": str(i)} if i % 2 else {"S": str(i)} for i in range(width)}
    many = [{f"k{i}": {"S": "v"}, "n": {"N": "2"}} for i in range(itemshapes.MAX_SHAPES + 5)]
    body = json.dumps({"Items": [wide, wide, wide, *many, *many]}).encode()
    check_page(_boto3_reader(), body, hostile=False)


SAMPLES: dict[str, Any] = {
    "S": "a",
    "N": "1",
    "B": "AAE=",
    "BOOL": True,
    "NULL": True,
    "SS": ["a"],
    "NS": ["1"],
    "BS": ["AAE="],
    "M": {"a": {"S": "b"}},
    "L": [{"S": "b"}],
}


@pytest.mark.parametrize("tag", list(SAMPLES))
@pytest.mark.parametrize("bad", HOSTILE, ids=repr)
def test_a_value_not_of_dynamodbs_forms_in_a_compiled_shape(tag: str, bad: Any) -> None:
    """Each value not of DynamoDB's forms, where the compiled code expects each type: the
    page is botocore's, as when the generic conversion meets it."""
    item = {"b": {"B": "AAE="}, "x": {tag: SAMPLES[tag]}, "z": {"N": "2"}}
    check_page(_boto3_reader(), json.dumps({"Items": [item] * 3}).encode(), hostile=False)
    page = [item, item, {**item, "x": bad}, item]
    check_page(_boto3_reader(), json.dumps({"Items": page}).encode(), hostile=True)


def test_names_whose_values_change_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """An attribute of another type from item to item (an optional value sent as NULL):
    a shape compiled per type, up to MAX_VARIANTS, the rest read generically; all the same
    values as botocore's and boto3's."""
    compiled = count_compiled(monkeypatch)
    kinds = [{tag: SAMPLES[tag]} for tag in ("S", "NULL", "N", "SS", "B", "L")]
    page = [{"a": {"S": "x"}, "opt": kinds[i % 2 if i < 20 else i % 6]} for i in range(60)]
    body = json.dumps({"Items": page}).encode()
    reader = _boto3_reader()
    check_page(reader, body, hostile=False)
    plain_shapes = [names for names in compiled if names == ("a", "opt")]
    assert len(plain_shapes) == 2 * itemshapes.MAX_VARIANTS  # typed, then plain


def test_threads_sharing_one_reader() -> None:
    """A client's reader is shared by the threads of a listing: shapes compiled and last
    functions swapped by several threads at once still give every page its own values."""
    shapes = [
        {"a": {"S": "x"}, "b": {"B": "AAE="}, "m": {"M": {"n": {"N": "1.5"}}}},
        {"a": {"S": "x"}, "b": {"NULL": True}, "m": {"M": {"n": {"NS": ["1", "2"]}}}},
        {"z": {"L": [{"N": "3"}, {"S": "y"}]}, "a": {"SS": ["p", "q"]}},
    ]
    bodies = [
        json.dumps({"Items": [shapes[(i + k) % 3] for i in range(40)]}).encode() for k in range(6)
    ]
    wanted = {}
    for body in bodies:
        typed = botocore_reads(body)["Items"]
        wanted[body] = (exact(typed), exact([plain(one) for one in typed]))
    reader = _boto3_reader()
    failures: list[str] = []

    def work(seed: int) -> None:
        for round_ in range(30):
            body = bodies[(seed + round_) % len(bodies)]
            typed = reader.read(body, "Items", QUERY, plain=False)
            both = reader.read(body, "Items", QUERY, plain=True)
            if typed is None or both is None:
                failures.append("not read")
            elif (exact(typed.typed), exact(both.plain)) != wanted[body]:
                failures.append("other values")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch inside the conversions
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert failures == []
