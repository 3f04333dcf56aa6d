"""Which layout reads a pasted key: the S3 :class:`KeyLayout` (prefix, shard and period folders,
suffix, scheme) of a key such as ``uploads/dt=2024-05-17/01HY....jpg``, or the DynamoDB sort key
template (``Post#{id}``) of ``Post#01HY...``, and the ``ls`` / ``query`` flags that say the same.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.pasted import Pasted
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.periods import folder_at_end
from ulidkeys.survey.suggestions import python_of

#: A shard folder right before the period folders or the id.
_SHARD = re.compile(r"(\d{2,})/$")


@dataclass(frozen=True)
class LayoutHint:
    """How a pasted key is read: ``kind`` ``"s3"`` (``layout``, the ``KeyLayout`` as Python) or
    ``"dynamodb"`` (``template``, the sort key template); ``command`` the ``ulidkeys`` command
    that lists such keys; ``note`` what one key cannot tell (the number of shard folders)."""

    kind: str
    layout: str
    command: str
    note: str = ""

    def as_dict(self) -> dict[str, str]:
        found = {"kind": self.kind, "layout": self.layout, "command": self.command}
        return {**found, "note": self.note} if self.note else found


def layout_hint(pasted: Pasted) -> LayoutHint | None:
    """The layout that reads the key ``pasted`` holds its id in; None for an id alone, an id
    that is a folder (more after it), or a scheme no layout lists."""
    before, after, scheme_name = pasted.before, pasted.after, pasted.reading.scheme
    if not (before or after) or "/" in after:
        return None
    try:
        scheme = scheme_named(scheme_name, pasted.reading.id)
    except UlidkeysError:  # a Unix time: no scheme
        return None
    flags = [] if scheme_name == "ulid" else ["--scheme", scheme_name]
    if "#" in before and "/" not in before:  # a DynamoDB sort key (Post#..., Org#a#Post#...)
        template = f"{before}{{id}}{after}"
        command = shlex.join(["ulidkeys", "query", "--sk", template, *flags])
        return LayoutHint("dynamodb", template, command + " ...")
    period = folder_at_end(before)  # the period folder right before the id
    rest = before if period is None else before[: period[1]]
    size = None if period is None else period[0].size
    shard = _SHARD.search(rest)
    prefix = rest[: shard.start()] if shard else rest
    shards = int(shard[1]) + 1 if shard else None
    suffix = after if after.startswith(".") or not after else ""
    try:
        layout = KeyLayout(prefix, shards=shards, period=size, suffix=suffix, scheme=scheme)
    except UlidkeysError:  # e.g. a scheme whose text does not sort by time
        return None
    flags = [
        *(["--shards", "N"] if shards else []),
        *(["--period", size] if size else []),
        *(["--suffix", suffix] if suffix else []),
        *flags,
    ]
    where = f"s3://{pasted.bucket or 'BUCKET'}/{prefix}"
    command = shlex.join(["ulidkeys", "ls", where, *flags])
    text = python_of(layout)
    if shard is None:
        return LayoutHint("s3", text, command)
    note = (
        f"shard folder {shard[1]}/: the layout has more than {int(shard[1])} shards "
        "(`ulidkeys survey` counts them)"
    )
    return LayoutHint("s3", text.replace(f"shards={shards}", "shards=N"), command, note)
