"""ASGI entry point: HTTP through Django, WebSockets through Channels (Daphne serves both)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")
# Django must be set up before the routing imports consumers and models.
django_asgi_app = get_asgi_application()

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
