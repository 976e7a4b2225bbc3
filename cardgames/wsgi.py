"""WSGI entry point, for management tools only: the site itself is served by Daphne (ASGI)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")
application = get_wsgi_application()
