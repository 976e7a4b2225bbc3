"""Allegra's modules held against the protocols the site uses them through (mypy checks
this module; nothing imports it): a member missing or of another shape fails `make lint`."""

from __future__ import annotations

from games.allegra import bots, layout, rules
from games.engine import BotsModule, LayoutModule, RulesModule

RULES: RulesModule[rules.State] = rules
BOTS: BotsModule = bots
LAYOUT: LayoutModule = layout
