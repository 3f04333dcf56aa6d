"""``ulidkeys.aio`` is the only part that needs the ``async`` extra: without aiobotocore the core
and the sync adapters import as before, and importing ``ulidkeys.aio`` names the extra."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.modules["aiobotocore"] = None  # as if the extra were not installed
    import ulidkeys, ulidkeys.engine.threads, ulidkeys.engine.tasks
    import ulidkeys.engine.operations, ulidkeys.s3, ulidkeys.dynamodb
    try:
        import ulidkeys.aio
    except ImportError as error:
        print(json.dumps([type(error).__name__, str(error)]))
    else:
        print(json.dumps(None))
    """
)


def test_importing_ulidkeys_aio_without_aiobotocore_names_the_extra() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    kind, message = json.loads(result.stdout.strip().splitlines()[-1])
    assert kind == "ImportError"
    assert "ulidkeys[async]" in message and "aiobotocore" in message


def test_ulidkeys_aio_imports_with_the_extra() -> None:
    import ulidkeys.aio

    assert {"AsyncBucket", "AsyncTable", "AsyncResults", "AsyncBatchWriter"} <= set(
        ulidkeys.aio.__all__
    )
