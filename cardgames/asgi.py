"""ASGI entry point: HTTP through Django, WebSockets through Channels (Daphne serves both)."""

import os
from typing import Any

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_finished
from django.db import connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")
# Django must be set up before the routing imports consumers and models.
django_asgi_app = get_asgi_application()


def close_request_connections(**kwargs: Any) -> None:
    """Close the connections of the request that ends, in its own thread.

    Django runs each HTTP request's sync code in a thread made for that request alone
    (asgiref's ThreadSensitiveContext) and never used again, so `DB_CONN_MAX_AGE` keeps
    nothing for requests: left open, each request's connection lived on until the garbage
    collector took its thread's, and a burst of page loads from one process filled
    PostgreSQL's 100 connections ("too many clients", answered 500). The threads that live
    on (the store's, the driver's, Channels') keep theirs as before. Bound to this handler
    only: the test client's requests run in the test's own thread and transaction."""
    for connection in connections.all(initialized_only=True):
        connection.close()


request_finished.connect(
    close_request_connections, sender=ASGIHandler, dispatch_uid="cardgames.asgi.close"
)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from cardgames.routing import websocket_urlpatterns  # noqa: E402
from tables.driver import StartDriver  # noqa: E402
from tables.live.stream import AllowedHostValidator, session_auth  # noqa: E402

# The first connection a process serves starts its bot driver (tables/driver.py).
application = StartDriver(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # The Origin must be ours (cross-site pages), and so must the Host, as for HTTP.
            "websocket": AllowedHostsOriginValidator(
                AllowedHostValidator(session_auth(URLRouter(websocket_urlpatterns)))
            ),
        }
    )
)
