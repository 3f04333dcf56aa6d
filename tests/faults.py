"""Faults injected into real botocore clients: a request that reaches the service but whose
reply is lost (a read timeout after the write landed), so botocore's own retry runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ReadTimeoutError
from botocore.httpsession import URLLib3Session
from moto.server import ThreadedMotoServer
from profiles import untraced


@contextmanager
def moto_server() -> Iterator[str]:
    """moto's HTTP server on a free local port; yields its endpoint URL.

    Its request threads run untraced: they run moto's code, never the package's, and under
    test-all's coverage (a trace function in every thread, which on Python 3.11 slows every
    frame of it) the tests that list over HTTP took half as long again (52.6 s against 32-38 s
    for the fault and server tests, measured side by side)."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    wsgi = server._server  # werkzeug's threaded server: one thread a request
    assert wsgi is not None  # start() returns once it is made
    wsgi.process_request_thread = untraced(wsgi.process_request_thread)  # type: ignore[method-assign]
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def s3_client(endpoint: str | None) -> Any:
    """An S3 client of moto's server at ``endpoint`` (or of in-process moto, for None)."""
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def lose_replies(client: Any, operation: str, times: int = 1) -> list[int]:
    """Make the first ``times`` ``operation`` requests of ``client`` reach the service, then
    raise ReadTimeoutError as if the reply were lost. Works against moto's HTTP server (the
    request is sent over HTTP) and in-process moto (the request is handed to moto's stub).
    Returns a list that counts the requests sent."""
    sent: list[int] = []
    service = client.meta.service_model.service_id.hyphenize()
    http = URLLib3Session()

    def deliver(request: Any, **kwargs: Any) -> Any:
        sent.append(1)
        if len(sent) > times:
            return None  # let the request go on normally
        if request.url.startswith("http://127.0.0.1"):
            http.send(request)
        else:
            from moto.core.models import botocore_stubber  # only with in-process moto

            botocore_stubber(request=request, **kwargs)
        raise ReadTimeoutError(endpoint_url=request.url)

    client.meta.events.register_first(f"before-send.{service}.{operation}", deliver)
    return sent
