from django.urls import re_path

from api import daily, replays, social, tournaments, verify, views  # noqa: F401 - each module registers its operations on `api`
from api.http import api, json_405

app_name = "api"

# ninja's own patterns, one per operation (named after its view), without its root page.
urlpatterns = [p for p in api.urls[0] if getattr(p, "name", None) != "api-root"]
for pattern in urlpatterns:
    pattern.callback = json_405(pattern.callback)

urlpatterns += [
    # Anything else under the API answers JSON too, never the site's HTML 404 page.
    re_path(r"^(?P<rest>.*)$", views.not_found),
]
