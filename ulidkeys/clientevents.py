"""What a botocore (or aiobotocore) client's event system does, read without emitting anything:
whether its endpoint emits ``before-parse`` (where the page readers hook in), which handlers
an event reaches, and which of them are botocore's own retry machinery rather than a user's.

botocore's event system offers no way to list its handlers: these read its
``HierarchicalEmitter`` (botocore's and aiobotocore's alike). Where it is not as expected, the
answers are the cautious ones (no handler list: the readers read typed, or stay out).
"""

from __future__ import annotations

import re
import sys
from typing import Any

#: The first release of each library whose endpoint emits ``before-parse``: botocore 1.35.16
#: (September 2024); aiobotocore 2.15.0, the first on botocore 1.35.16 (its own endpoint
#: emits the event from then on). Before them no ``before-parse`` handler is ever called.
BEFORE_PARSE_SINCE: dict[str, tuple[int, ...]] = {
    "botocore": (1, 35, 16),
    "aiobotocore": (2, 15, 0),
}


def emits_before_parse(client: Any) -> bool:
    """Whether ``client``'s endpoint emits ``before-parse`` before it parses an answer (what a
    page reader needs to run at all): the library that defines its endpoint's response path
    (botocore's ``Endpoint`` or aiobotocore's) is a release that emits it. An endpoint of
    another kind (a subclass that reads answers its own way) is not known to: False."""
    endpoint = getattr(client, "_endpoint", None)
    if endpoint is None:
        return False
    for cls in type(endpoint).__mro__:
        if "_do_get_response" in vars(cls):
            package = cls.__module__.partition(".")[0]
            break
    else:
        return False
    since = BEFORE_PARSE_SINCE.get(package)
    version = release(getattr(sys.modules.get(package), "__version__", None))
    return since is not None and version is not None and version >= since


def release(version: object) -> tuple[int, ...] | None:
    """The numeric release of a version string (``"1.35.16"`` -> ``(1, 35, 16)``; a
    pre-release's suffix is dropped), or None for anything else."""
    found = re.match(r"([0-9]+(?:\.[0-9]+)*)", version) if isinstance(version, str) else None
    return tuple(int(part) for part in found.group(1).split(".")) if found else None


def hierarchical_emitter(events: Any) -> Any:
    """The HierarchicalEmitter behind a client's ``meta.events``, or None if not known."""
    inner = getattr(events, "_emitter", events)
    handlers = getattr(inner, "_handlers", None)
    if (
        isinstance(getattr(inner, "_unique_id_handlers", None), dict)
        and isinstance(getattr(inner, "_lookup_cache", None), dict)
        and isinstance(getattr(handlers, "_root", None), dict)
        and callable(getattr(handlers, "prefix_search", None))
    ):
        return inner
    return None


def handlers_of(hierarchical: Any, event: str) -> list[Any] | None:
    """The handlers an emit of ``event`` calls, in order, on a HierarchicalEmitter (from
    :func:`hierarchical_emitter`), or None if they cannot be read. Nothing is emitted."""
    try:
        handlers = hierarchical._lookup_cache.get(event)  # what the next emit calls
        if handlers is None:
            handlers = hierarchical._handlers.prefix_search(event)
        return list(handlers)
    except Exception:
        return None


def is_retry_machinery(handler: Any) -> bool:
    """Whether ``handler`` is botocore's own retry bookkeeping that never sees an answer's
    parsed body: the ``after-call`` handler the ``standard`` and ``adaptive`` retry modes
    register (``RetryQuotaChecker.release_retry_quota``, which reads the HTTP status only;
    aiobotocore registers botocore's too). Told by identity, the function and the class of
    the object it is bound to both botocore's own: a user's handler of the same name, or a
    subclass overriding it, is not taken for it."""
    from botocore.retries.standard import RetryQuotaChecker  # boto3: an optional extra

    return (
        getattr(handler, "__func__", None) is RetryQuotaChecker.release_retry_quota
        and type(getattr(handler, "__self__", None)) is RetryQuotaChecker
    )
