"""English dates as Django writes them, with a 24-hour clock (cardgames.formats)."""

TIME_FORMAT = "H:i"
DATETIME_FORMAT = "N j, Y, H:i"
SHORT_DATETIME_FORMAT = "m/d/Y H:i"
