"""High Card: a tiny third game that exists only in the tests (EXTRA_GAMES in tests/settings.py).

It proves that a game is a package plus one registry line: no shared file names it.
"""
