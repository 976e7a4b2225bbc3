"""The test run's settings: the site's own, plus the third game that lives only in the tests.

One registry line (EXTRA_GAMES) and its templates: no shared file names the game.
"""

from cardgames.settings import *  # noqa: F403
from cardgames.settings import BASE_DIR, TEMPLATES

EXTRA_GAMES = [("highcard", "High Card", "tests.thirdgame")]
TEMPLATES[0]["DIRS"] = [*TEMPLATES[0]["DIRS"], BASE_DIR / "tests" / "thirdgame" / "templates"]
# The unit tests' tables are never opened: their bots play on unless a test asks for the end
# of tables nobody is at (tests/lobby/test_unwatched.py).
END_UNWATCHED = False
# Their scripted players answer at a machine's speed, which the reaction-time check would rightly
# flag and hold out of rated play (tests/fairness/test_reaction.py and the moderation tests turn
# it on; the live_api site, on the site's settings, has it on).
REACTION_FLAGS = False
