"""Settings for cardgames, driven by environment variables with safe defaults.

With nothing set: DEBUG on, SQLite and the in-memory channel layer (one Daphne process).
`DATABASE_URL` switches to PostgreSQL, `REDIS_URL` to channels_redis' pub/sub layer.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.conf import global_settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str = "False") -> bool:
    return os.environ.get(name, default).strip().lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = envbool("DEBUG", "True")
if DEBUG:
    # Only good for local development: production must set SECRET_KEY (checked below).
    SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-do-not-use-in-production")
else:
    SECRET_KEY = os.environ.get("SECRET_KEY", "")
    if not SECRET_KEY:
        raise ImproperlyConfigured(
            "Set the SECRET_KEY environment variable (a long random string, e.g. from "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`): "
            "it is required when DEBUG is off."
        )

# The key of the daily challenge's deals (daily.deal): each day's seeds are an HMAC of the date
# under it, revealed the next day; it must stay the same across restarts and processes, and
# secret, or anyone could compute tomorrow's deal. The SECRET_KEY unless set apart.
DAILY_SECRET = os.environ.get("DAILY_SECRET", "") or SECRET_KEY

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",  # first, so runserver is Daphne's ASGI server
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "tables.apps.TablesConfig",  # also closes a user's sockets on logout, password change, ban
    "lobby",
    "api",
    "chat",
    "moderation",
    "social",
    "tournaments",
    "daily",
]

MIDDLEWARE = [
    # First: it sees every answer under /api/, Django's own included, and makes it JSON.
    "cardgames.apierrors.ApiErrorsMiddleware",
    # Then no NUL from a path, a query or a form reaches a view (PostgreSQL refuses them).
    "cardgames.middleware.RefuseNulMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After sessions and auth: the language is the session's choice, else the browser's.
    "lobby.locale.LanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "cardgames.urls"
ASGI_APPLICATION = "cardgames.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
            # The site's templates `{% load i18n_kept %}`: Django's i18n tags, with what they
            # render kept per language and values (cardgames.i18n_tags).
            "libraries": {"i18n_kept": "cardgames.i18n_tags"},
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Keep connections: Channels closes "old" ones around every database call, and with a
        # max age of 0 every move would pay a fresh connect (most of a move's cost, measured).
        conn_max_age=envint("DB_CONN_MAX_AGE", 600),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # SQLite ignores SELECT ... FOR UPDATE; taking the write lock when a transaction
        # begins makes every locked read-modify-write run one at a time, as on PostgreSQL.
        "transaction_mode": "IMMEDIATE",
        # Wait for that lock instead of failing at once when two requests write together.
        "timeout": 20,
        # WAL lets readers go on while a move commits; NORMAL syncs at checkpoints, not on
        # every commit (a power cut may lose the last moves, never corrupt the file).
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not shared memory, so that threads in the tests lock it as processes do.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test-db.sqlite3")}

REDIS_URL = os.environ.get("REDIS_URL", "")
# Several sites (or test runs) can share one Redis, each with a prefix of its own. A worker of a
# parallel test run (pytest-xdist) adds its name, and so do the servers its tests start, which
# inherit its environment: they speak to each other and to no other worker's.
CHANNELS_PREFIX = os.environ.get("CHANNELS_PREFIX", "") + os.environ.get("PYTEST_XDIST_WORKER", "")
if REDIS_URL:
    # The pub/sub layer: the classic RedisChannelLayer drops group messages under load.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNELS_PREFIX or "asgi"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CHANNELS_PREFIX,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Which hashers check passwords, the first one hashing new ones: Django's own list (PBKDF2 with
# 1.5 million rounds first, about 0.4 s of a core per sign-up or login) unless named. The test
# suite's sites name a cheap one: their hundreds of sign-ups and logins prove nothing about the
# hash, and their CPU is what a loaded machine runs short of (docs/performance.md, "The suite").
PASSWORD_HASHERS = envlist("PASSWORD_HASHERS") or global_settings.PASSWORD_HASHERS

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby:index"
LOGOUT_REDIRECT_URL = "lobby:index"

# Failed logins: this many per (normalised) username and per client address are free within
# the window (seconds, sliding from the last failure); each further one doubles the wait before
# the next try, from 2 s up to LOGIN_MAX_DELAY. Nobody is locked out for long.
LOGIN_FAILURES_PER_USER = envint("LOGIN_FAILURES_PER_USER", 10)
LOGIN_FAILURES_PER_ADDRESS = envint("LOGIN_FAILURES_PER_ADDRESS", 50)
LOGIN_FAILURE_WINDOW = envint("LOGIN_FAILURE_WINDOW", 900)
LOGIN_MAX_DELAY = envint("LOGIN_MAX_DELAY", 300)
# Sign-ups per client address within the window (seconds).
SIGNUPS_PER_ADDRESS = envint("SIGNUPS_PER_ADDRESS", 5)
SIGNUP_WINDOW = envint("SIGNUP_WINDOW", 3600)
# Guests (lobby/guests.py: a visitor who practises without an account) made per client
# address within the window (seconds): a guest is a user row, so they are limited like sign-ups.
GUESTS_PER_ADDRESS = envint("GUESTS_PER_ADDRESS", 10)
GUEST_WINDOW = envint("GUEST_WINDOW", 3600)
# Rooms one user may host at once (open or being played).
ROOMS_PER_USER = envint("ROOMS_PER_USER", 5)
# Room operations (open, join, leave, bots, start) one user may make within the window.
ROOM_ACTIONS_PER_USER = envint("ROOM_ACTIONS_PER_USER", 60)
ROOM_ACTION_WINDOW = envint("ROOM_ACTION_WINDOW", 60)
# Chat lines one user may post within the window (seconds), across all rooms.
CHAT_LINES_PER_USER = envint("CHAT_LINES_PER_USER", 5)
CHAT_LINE_WINDOW = envint("CHAT_LINE_WINDOW", 10)
# Notifications (social.notify): how many one sender may cause one recipient of one kind (a
# friend request, an invitation) within the window, in seconds; the rest are not told.
SOCIAL_NOTIFY_PER_SENDER = envint("SOCIAL_NOTIFY_PER_SENDER", 3)
SOCIAL_NOTIFY_WINDOW = envint("SOCIAL_NOTIFY_WINDOW", 3600)
# Web Push (RFC 8030/8291/8292): the VAPID key pair (base64url, as `vapid --gen` and
# `social.webpush_keys` print them) and the contact the push services see. No private key: no push.
WEBPUSH_VAPID_PUBLIC_KEY = os.environ.get("WEBPUSH_VAPID_PUBLIC_KEY", "")
WEBPUSH_VAPID_PRIVATE_KEY = os.environ.get("WEBPUSH_VAPID_PRIVATE_KEY", "")
WEBPUSH_VAPID_SUBJECT = os.environ.get("WEBPUSH_VAPID_SUBJECT", "mailto:admin@localhost")

# Where the site's mails go (a notification a user asked to have mailed, social.notify): the
# SMTP server EMAIL_HOST names (STARTTLS unless EMAIL_USE_TLS is false); without one, a
# development site writes them to its console and a production one hands them to the
# machine's own mail server (localhost:25, plain), as Django always did. Tests mail into
# Django's memory outbox. (Not settings of their own: MAILERS forbids Django's EMAIL_HOST.)
mail_host = os.environ.get("EMAIL_HOST", "")
mail_tls = envbool("EMAIL_USE_TLS", "True" if mail_host else "False")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cardgames@localhost")
MAILERS = {
    "default": (
        {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
        if DEBUG and not mail_host
        else {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": mail_host or "localhost",
                "port": envint("EMAIL_PORT", 587 if mail_tls else 25),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": mail_tls,
                "timeout": 10,
            },
        }
    )
}

LANGUAGE_CODE = "en"
# Each language is named in itself: the switcher is read by someone who may not read the page's.
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("ru", "Русский"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# A 24-hour clock in every language, as the pages count deadlines (cardgames/formats).
FORMAT_MODULE_PATH = ["cardgames.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

if not DEBUG:
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "True")
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "True")
    SECURE_CONTENT_TYPE_NOSNIFF = True

# Only our own files run or style a page: no inline scripts, event handlers or style
# attributes (htmx's indicator styles are off in base.html's htmx-config for this reason).
# 'self' also covers same-host ws:// and wss:// for the live sockets.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# How many reverse proxies in front of Daphne append to X-Forwarded-For (True = 1): the client
# address for the rate limits is then the one the outermost of them saw. 0 (False) uses the
# socket's address. See the README's production part.
_trusted_proxy = os.environ.get("TRUSTED_PROXY", "0").strip().lower()
TRUSTED_PROXY = {"true": 1, "yes": 1, "on": 1, "false": 0, "no": 0, "off": 0, "": 0}.get(
    _trusted_proxy
)
if TRUSTED_PROXY is None:
    TRUSTED_PROXY = int(_trusted_proxy)

# Limits enforced by cardgames.server (python -m cardgames.server), in the server process itself.
# A request body over this many bytes is refused with 413 before it is read whole.
REQUEST_BODY_LIMIT = envint("REQUEST_BODY_LIMIT", 1024 * 1024)
# Larger limits for the views that need them: {"/path/prefix/": bytes}; the longest prefix wins.
REQUEST_BODY_LIMITS: dict[str, int] = {}
# A WebSocket whose client leaves more than this many bytes unsent is closed (1013); the page
# reconnects and gets its whole view again. A healthy browser keeps this near zero.
WEBSOCKET_BACKLOG_LIMIT = envint("WEBSOCKET_BACKLOG_LIMIT", 256 * 1024)
WSGI_APPLICATION = "cardgames.wsgi.application"

# Live tables (games/): the countdown before each round (L7), how long a player's socket may be
# gone before a bot stands in, the bots' pace (a multiplier of each level's delays; 0 = at once),
# and the bot driver's lease (a dead process's rooms are taken over within this many seconds).
TABLE_COUNTDOWN = float(os.environ.get("TABLE_COUNTDOWN", "3"))
LEAVER_GRACE = float(os.environ.get("LEAVER_GRACE", "30"))
# A table with no person left (no socket for LEAVER_GRACE, or given up) and no spectator for as
# long ends, abandoned, instead of its bots playing on for nobody (off in the unit tests, whose
# tables nobody opens).
END_UNWATCHED = envbool("END_UNWATCHED", "True")
# Whether the reaction-time check flags the accounts whose plays come inhumanly fast or regular
# (tables.reaction, docs/fairness.md); their times are kept either way (off in the unit tests,
# whose scripted players answer at a machine's speed: the check's own tests turn it on).
REACTION_FLAGS = envbool("REACTION_FLAGS", "True")
# In a race (a game whose registry entry says `race`), a player who has done nothing for this
# many seconds while a round goes on (or in the whole round, by its end) is marked away as if
# his tab were closed: his idle hand could hold the round's only plays (L14).
ROUND_IDLE = float(os.environ.get("ROUND_IDLE", "30"))
BOT_PACE = float(os.environ.get("BOT_PACE", "1"))
# Seconds the room actors' writer waits before it writes what is pending in one transaction
# (group commit). A move is acknowledged once written, so this adds to every move's latency;
# at 0 the writer starts at once and the moves that come in while it writes go in its next
# transaction, which groups them just as well under load (docs/performance.md).
ACTION_FLUSH_DELAY = float(os.environ.get("ACTION_FLUSH_DELAY", "0"))
# A snapshot of a live match's state at least this often (moves, seconds); between two,
# recovery replays the action log (tables.live.store.recover).
SNAPSHOT_EVERY = envint("SNAPSHOT_EVERY", 50)
SNAPSHOT_SECONDS = float(os.environ.get("SNAPSHOT_SECONDS", "5"))
# Seconds a finished or closed match's live room stays in memory for late readers before the
# process drops it (tables.live.rooms); a room also goes when another process takes it over.
LIVE_ROOM_GRACE = float(os.environ.get("LIVE_ROOM_GRACE", "10"))
# On SQLite the live rooms' store (tables.live.store.SqliteStore) has the WAL file checkpointed
# by a thread of its own this often (seconds), not by the commit that happens to fill it: 0
# leaves it to SQLite's commits (docs/operations.md).
SQLITE_CHECKPOINT_SECONDS = float(os.environ.get("SQLITE_CHECKPOINT_SECONDS", "0.5"))
BOT_DRIVER = envbool("BOT_DRIVER", "True")
DRIVER_LEASE = float(os.environ.get("DRIVER_LEASE", "5"))
# Seconds a thread (a view, the bot driver) waits for the server loop to answer its move or
# touch: past it the move is refused as `unavailable` (503) and the thread goes on (a loop that
# stopped at shutdown must not hold a request thread, and so the process, for ever).
THREAD_WAIT = float(os.environ.get("THREAD_WAIT", "10"))
# Seconds a process has on SIGTERM to tell its sockets, write what it took and hand its rooms
# over (cardgames.lifecycle.stop) before Daphne ends its applications and the process exits.
SHUTDOWN_GRACE = float(os.environ.get("SHUTDOWN_GRACE", "3"))
# Seconds a move forwarded to its room's owner process (tables.live.owners) waits for the answer;
# then it is refused as `unavailable` (503), and the client looks at the table again.
MOVE_FORWARD_TIMEOUT = float(os.environ.get("MOVE_FORWARD_TIMEOUT", "3"))
# Ratings (tables/ratings.py): a rating is shown with "?" until this many rated matches; bots
# play at fixed (mu, sigma) per level, on OpenSkill's scale (a newcomer is 25 ± 8.33).
RATING_PROVISIONAL_MATCHES = envint("RATING_PROVISIONAL_MATCHES", 5)
BOT_RATINGS = {"easy": (18.0, 1.0), "normal": (25.0, 1.0), "fast": (30.0, 1.0)}
# Quick play (lobby/quickplay.py): how long a room it opened waits for people before bots fill
# its empty seats and it starts, and how far (shown points) a room's players may be from yours:
# the band, wider while a rating is provisional ("?": a few matches say little), grows by so
# many points for each second the room has waited (lichess's pools widen the same way).
QUICK_PLAY_WAIT = float(os.environ.get("QUICK_PLAY_WAIT", "20"))
# A rematch nobody but its opener came to within this many seconds closes (the lobby's sweep).
REMATCH_EXPIRY = float(os.environ.get("REMATCH_EXPIRY", "600"))
QUICK_PLAY_BAND = envint("QUICK_PLAY_BAND", 300)
QUICK_PLAY_PROVISIONAL_BAND = envint("QUICK_PLAY_PROVISIONAL_BAND", 700)
QUICK_PLAY_BAND_GROWTH = float(os.environ.get("QUICK_PLAY_BAND_GROWTH", "40"))
# The timer that fills a waiting room on time (off in tests, which call quickplay.fill_due).
QUICK_PLAY_TIMER = envbool("QUICK_PLAY_TIMER", "True")
# Tournaments (tournaments.scheduler): the loop each server process runs for the events
# (tests call scheduler.run_due themselves), the break between Swiss rounds, and the Arena's
# grace after its end (a match ending within it counts) and longest wait before fillers
# complete a table.
TOURNAMENT_TIMER = envbool("TOURNAMENT_TIMER", "True")
TOURNAMENT_BREAK = float(os.environ.get("TOURNAMENT_BREAK", "20"))
TOURNAMENT_ARENA_GRACE = float(os.environ.get("TOURNAMENT_ARENA_GRACE", "60"))
TOURNAMENT_ARENA_WAIT = float(os.environ.get("TOURNAMENT_ARENA_WAIT", "10"))
# Actions a second one table socket may send (a burst of as many); more are refused at once.
TABLE_ACTION_RATE = float(os.environ.get("TABLE_ACTION_RATE", "12"))
# Moves of one table socket being applied at once: a second click while the first is on its
# way is fine, a backlog is not (a late move is a wrong move); one more is refused at once.
TABLE_MOVES_IN_FLIGHT = envint("TABLE_MOVES_IN_FLIGHT", 2)
# Latency equalisation's window (tables.live.equalise, docs/fairness.md): an equalised table
# holds each play this long and orders the plays it holds by estimated sending time; at most
# 40 ms on the site (a longer one would be a delay players feel).
EQUALISE_WINDOW_MS = envint("EQUALISE_WINDOW_MS", 40)

# The Board API (api/): actions per user (HTTP and stream together) within a window of so many
# seconds; over it, 429. Ten a second on average: more than the fastest hands (and bots) play,
# far less than a runaway loop. Its sign-ups and token requests take the site's own limits.
API_ACTIONS_PER_USER = envint("API_ACTIONS_PER_USER", 100)
API_ACTION_WINDOW = envint("API_ACTION_WINDOW", 10)
