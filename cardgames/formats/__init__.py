"""The site's own date and time formats where Django's differ from the rest of a page.

Every page shows clock times as a 24-hour clock: a deadline counts in "14:05:09" (static/js/
site.js), so a start time beside it reads "14:05", not "2:05 p.m." (issue 45 item 12). German
and Russian use that clock already; English and Korean follow here (FORMAT_MODULE_PATH).
"""
