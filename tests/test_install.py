"""Installable: the manifest names its icons and colours, the worker caches what the offline page
needs, the offline page stands alone, and every page says what it is (a meta description)."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db


def served(url: str) -> bool:
    """A static file by its finders (tests serve no collected files), any other page by a GET."""
    if url.startswith(settings.STATIC_URL):
        return finders.find(url.removeprefix(settings.STATIC_URL)) is not None
    return Client().get(url).status_code == 200


def test_the_manifest_names_the_app_its_icons_and_colours():
    response = Client().get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    data = json.loads(response.content)
    assert data["start_url"] == "/" and data["scope"] == "/"
    assert data["display"] == "standalone"
    assert data["theme_color"] == "#1b4d2d" and data["background_color"]
    sizes = {icon["sizes"] for icon in data["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in data["icons"])
    for icon in data["icons"]:  # each one is really served
        assert served(icon["src"]), icon["src"]


def test_the_manifest_speaks_the_readers_language():
    english = json.loads(Client().get("/manifest.webmanifest").content)
    german = json.loads(
        Client(headers={"accept-language": "de"}).get("/manifest.webmanifest").content
    )
    assert german["lang"] == "de"
    assert german["description"] != english["description"]


def test_the_worker_precaches_the_offline_page_and_its_files():
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "no-cache" in response["Cache-Control"]
    body = response.content.decode()
    precache = json.loads(re.search(r"const PRECACHE = (\[.*?\]);", body).group(1))
    # The offline page in every language (issue 45 item 8), each in its own words.
    pages = ["/offline/en/", "/offline/de/", "/offline/ru/", "/offline/ko/"]
    assert all(page in precache for page in pages)
    assert len({Client().get(page).content for page in pages}) == 4
    assert json.loads(re.search(r"const OFFLINE = (\{.*?\});", body).group(1))["ko"] == pages[3]
    assert Client().get("/offline/xx/").status_code == 404
    for url in precache:
        assert served(url), url


def test_the_offline_page_needs_no_script_and_no_user():
    response = Client().get("/offline/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script" not in html
    assert "csrfmiddlewaretoken" not in html


@pytest.mark.parametrize(
    "path", ["/", "/how-to-play/allegra/", "/how-to-play/ligretto/", "/leaderboard/"]
)
def test_every_page_has_a_description_a_manifest_and_a_theme(path):
    html = Client().get(path).content.decode()
    description = re.search(r'<meta name="description" content="([^"]+)">', html)
    assert description and len(description.group(1)) > 40
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert '<meta name="theme-color"' in html
    assert 'data-worker="/sw.js"' in html
