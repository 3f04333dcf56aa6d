"""How many connections a boto3 (or aiobotocore) client keeps, and the warning when a run would
have more requests in flight than that: botocore's pool keeps 10 by default, and each request
past it opens a connection of its own (a TCP and TLS handshake) and closes it afterwards.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from ulidkeys.errors import SmallConnectionPool

#: botocore's (and aiobotocore's) ``max_pool_connections`` when a client is made without one.
DEFAULT_POOL = 10

# clients already warned about, so a loop of listings warns once (weak: clients come and go)
_warned: weakref.WeakSet[Any] = weakref.WeakSet()


def pool_size(client: object) -> int | None:
    """The connections ``client`` keeps open (None: not a botocore client)."""
    config = getattr(getattr(client, "meta", None), "config", None)
    if config is None:
        return None
    size = getattr(config, "max_pool_connections", None)
    return size if isinstance(size, int) else DEFAULT_POOL


def warn_crowded(client: object, size: int, in_flight: int) -> None:
    """Warn (once per client) that ``in_flight`` requests outnumber the ``size`` connections
    its pool keeps (the caller compares: it knows ``size`` from :func:`pool_size`)."""
    try:
        if client in _warned:
            return
        _warned.add(client)
    except TypeError:
        pass  # not weakly referable: warn every time rather than never
    warnings.warn(
        f"{in_flight} requests in flight (max_workers) but the client keeps {size} "
        "connections: each request past them opens and closes a connection of its own "
        "(urllib3 logs 'Connection pool is full'); make the client with "
        f"botocore.config.Config(max_pool_connections={in_flight})",
        SmallConnectionPool,
        stacklevel=3,
    )
