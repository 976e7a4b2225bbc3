import pytest

from tests.moderation.helpers import make_moderator


@pytest.fixture
def mod(db):
    return make_moderator("mod")
