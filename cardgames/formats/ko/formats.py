"""Korean dates as Django writes them, with a 24-hour clock (cardgames.formats)."""

TIME_FORMAT = "H:i"
DATETIME_FORMAT = "Y년 n월 j일 H:i"
