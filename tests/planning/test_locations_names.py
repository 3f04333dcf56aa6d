"""Bucket names S3 reserves (its general-purpose and directory bucket naming rules): refused by
``check_bucket_name`` with the rule, before any call; names S3 reads in place of a bucket (a
directory bucket, an access point alias) still taken.
"""

from __future__ import annotations

import pytest

from ulidkeys.errors import InvalidValue
from ulidkeys.planning.locations import check_bucket_name, split_s3_url
from ulidkeys.s3.bucket import is_directory_bucket


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("xn--abc", "starts with 'xn--'"),  # punycode: moto's server failed on it (UnicodeError)
        ("sthree-photos", "starts with 'sthree-'"),
        ("sthree-configurator", "starts with 'sthree-'"),
        ("amzn-s3-demo-bucket", "starts with 'amzn-s3-demo-'"),  # the AWS docs' examples
        ("xn--photos--use1-az4--x-s3", "starts with 'xn--'"),  # directory buckets too
        ("192.168.5.4", "IP address"),
        ("10.0.0.1", "IP address"),
        ("mfzwi23gnjvgw.mrap", "'.mrap'"),  # a Multi-Region Access Point is named by its ARN
        ("photos--x-s3", "a directory bucket's, named NAME--ZONE-ID--x-s3"),  # no zone
        ("photos.x--use1-az4--x-s3", "'--x-s3'"),  # no '.' in a directory bucket
    ],
)
def test_reserved_names_are_refused_with_the_rule(name: str, rule: str) -> None:
    with pytest.raises(InvalidValue, match="is not an S3 bucket name") as refused:
        check_bucket_name(name)
    assert rule in str(refused.value) and repr(name) in str(refused.value)
    with pytest.raises(InvalidValue, match="is not an S3 bucket name"):
        split_s3_url(f"s3://{name}/uploads/")


@pytest.mark.parametrize(
    "name",
    [
        "photos",
        "photos--use1-az4--x-s3",  # a directory bucket: its --x-s3 is its own
        "uploads--usw2-az1--x-s3",
        "my-ap-hrzrlukc5m36ft7okagglf3gmwluquse1b-s3alias",  # access point alias
        "my-olap-1a4n8yjrb3kda96f67zwrwiiuse1a--ol-s3",  # Object Lambda alias
        "63a8e430-6e0b-46f5-k833abtwr6s8tmtsycedn8s4yc3xhuse1b--table-s3",  # S3 Tables
        "1.2.3",  # three numbers are no IP address
        "1.2.3.4.5",
        "logs.192.168.5.4",
        "my.bucket.1.2",
        "xn-abc",
        "sthree",
        "mrap",
        "photos.mrapx",
    ],
)
def test_names_s3_reads_as_a_bucket_are_taken(name: str) -> None:
    assert check_bucket_name(name) == name


def test_every_name_taken_with_the_directory_suffix_is_a_directory_bucket() -> None:
    # the listing's rules follow is_directory_bucket: a name it would call a directory bucket
    # is taken only in a directory bucket's form
    for name in ("photos--use1-az4--x-s3", "a--b--x-s3"):
        assert is_directory_bucket(check_bucket_name(name))
    for name in ("a--x-s3", "abc-x-s3--x-s3"):
        with pytest.raises(InvalidValue, match="NAME--ZONE-ID--x-s3"):
            check_bucket_name(name)
