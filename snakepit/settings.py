"""Snakepit settings, read from the environment.

With nothing set, the embedded default: SQLite in WAL mode under var/ and a Celery broker that needs no
server (kombu's filesystem transport), so the web server, a real worker and beat all run on a laptop.
With `DATABASE_URL` and `REDIS_URL` set: PostgreSQL and Redis. With `CI=true` and nothing else set,
the real services on 127.0.0.1 are the defaults, and the test suite refuses to run without them.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SNAKEPIT_VAR_DIR", BASE_DIR / "var"))


def env_flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


# Every file the service writes (the SQLite database and its WAL, the filesystem broker, the ops
# cache, logs, the secret) is its owner's alone, whatever umask the shell had: an uploaded bot runs as
# another user and read the whole database through a 0644 file (#32). var/ itself is closed too, so
# files an older version left readable cannot be reached either.
os.umask(0o077)
VAR_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
if VAR_DIR.stat().st_uid == os.geteuid():
    VAR_DIR.chmod(0o700)
IN_CI = env_flag("CI")
# Debug pages show settings and code to whoever triggers an error: off unless asked for.
DEBUG = env_flag("DJANGO_DEBUG")


def _machine_secret_key() -> str:
    """A random key made once for this machine and kept in var/ (readable by its owner only), so a
    newcomer's server has a real secret without configuring one; several servers behind one site
    must share DJANGO_SECRET_KEY instead (deploy/README.md)."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        import secrets

        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "") or _machine_secret_key()
# The pages name the demo login only where `manage.py up` made that account and listens on loopback,
# and then only to this machine (snakepit.demo.demo_login_hint).
SNAKEPIT_SHOW_DEMO_LOGIN = env_flag("SNAKEPIT_SHOW_DEMO_LOGIN")
ALLOWED_HOSTS = [
    h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h
]

# Behind a TLS-terminating proxy (deploy/README.md): cookies only over HTTPS, HSTS, and plain HTTP
# redirected. The proxy must set X-Forwarded-Proto, which is then trusted.
BEHIND_TLS = env_flag("DJANGO_BEHIND_TLS")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = BEHIND_TLS
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600))) if BEHIND_TLS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = BEHIND_TLS
SECURE_HSTS_PRELOAD = BEHIND_TLS and env_flag("DJANGO_HSTS_PRELOAD", default=True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_TLS else None
# Probes (Kubernetes, Compose, a balancer) ask over plain HTTP inside the cluster: not redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_HTTPONLY = CSRF_COOKIE_HTTPONLY = True
CSRF_FAILURE_VIEW = "snakepit.errors.csrf_failure"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No request body is bigger: an action, a deck list or a tournament's set-up are a few kilobytes.
SNAKEPIT_MAX_BODY_BYTES = int(os.environ.get("SNAKEPIT_MAX_BODY_BYTES", str(256 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = SNAKEPIT_MAX_BODY_BYTES
# Paths whose bodies may be larger than the cap: a bot uploaded as a zip (bots.archives.ArchiveLimits
# lets the zip itself be 1 MiB) through the API or the My bots page, with room for the form around it.
SNAKEPIT_UPLOAD_BODY_BYTES = int(os.environ.get("SNAKEPIT_UPLOAD_BODY_BYTES", str(1024 * 1024 + 64 * 1024)))
SNAKEPIT_UPLOAD_PATHS = ("/api/bots/", "/bots/")
DATA_UPLOAD_MAX_NUMBER_FIELDS = 200
# JSON bodies nest no deeper than this (a deeper one is a 400, not a crash of the parser).
SNAKEPIT_MAX_JSON_DEPTH = int(os.environ.get("SNAKEPIT_MAX_JSON_DEPTH", "32"))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "snakepit",
    "matches",
    "decks",
    "tournaments",
    "ratings",
    "bots",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "snakepit.errors.RequestLimitsMiddleware",
    "snakepit.static_files.AsyncCapableWhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "snakepit.urls"
WSGI_APPLICATION = "snakepit.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "snakepit" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # The play boards' filters (snakepit/pages/play_tags.py), loaded as `{% load play %}`.
            "libraries": {"play": "snakepit.pages.play_tags"},
        },
    },
]

# --- database -----------------------------------------------------------------------------------
_default_database_url = "postgres://postgres@127.0.0.1:5432/postgres" if IN_CI else ""
DATABASE_URL = (
    os.environ.get("DATABASE_URL", _default_database_url) or f"sqlite:///{VAR_DIR / 'snakepit.sqlite3'}"
)
# Seconds a thread keeps its connection; the web process (snakepit/asgi.py) sets 0.
SNAKEPIT_DB_CONN_MAX_AGE = int(os.environ.get("SNAKEPIT_DB_CONN_MAX_AGE", "60"))
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=SNAKEPIT_DB_CONN_MAX_AGE, conn_health_checks=True
    )
}
# At most this many requests are inside Django at once in one web process (snakepit/serving.py),
# each in a thread with at most one database connection: this is the most database connections one
# web process holds, however many clients there are (deploy/README.md).
SNAKEPIT_WEB_THREADS = int(os.environ.get("SNAKEPIT_WEB_THREADS", "8"))
# A pool of connections per process (below: psycopg's on PostgreSQL, snakepit/sqlite_pool on SQLite).
# "web" (what snakepit/asgi.py asks for unless it is set) is one of SNAKEPIT_WEB_THREADS connections:
# the web process's requests and stream reads then share that many.
_pool_size = os.environ.get("SNAKEPIT_DB_POOL_SIZE", "0")
# "web" (snakepit/asgi.py's default): as many connections as the web process may use at once, its
# requests inside Django (SNAKEPIT_WEB_THREADS, snakepit/serving.py) beside its event streams' reads
# of the database (as many again, api/sse.py's read gate), so that neither waits for the pool.
SNAKEPIT_DB_POOL_SIZE = 2 * SNAKEPIT_WEB_THREADS if _pool_size == "web" else int(_pool_size)
SNAKEPIT_DB_PGBOUNCER = env_flag("SNAKEPIT_DB_PGBOUNCER")  # PostgreSQL through PgBouncer, below
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    if SNAKEPIT_DB_POOL_SIZE > 0:  # the web process's closed connections wait for its next requests
        DATABASES["default"]["ENGINE"] = "snakepit.sqlite_pool"
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets the web server, the worker and beat read while one of them writes;
        # IMMEDIATE takes the write lock at BEGIN so concurrent appends queue instead of failing.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # A file, not memory: tests that use several connections at once (threads, a worker process)
    # then see one database, as the real service does.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
else:
    # Each process names itself to the server (pg_stat_activity.application_name), so an operator
    # sees whose connections they are: `manage.py up` and deploy/Procfile add -web, -worker, -beat.
    DATABASES["default"].setdefault("OPTIONS", {})["application_name"] = os.environ.get(
        "SNAKEPIT_DB_APPLICATION_NAME", "snakepit"
    )
    # Optional: psycopg's pool, one per process, of at most this many connections (deploy/README.md,
    # "Database connections"). Unset, each thread keeps its own connection for CONN_MAX_AGE, which the
    # web server's fixed thread pool bounds just as well; the pool also caps a worker and lets idle
    # connections go after SNAKEPIT_DB_POOL_MAX_IDLE seconds. Django's pool needs CONN_MAX_AGE 0.
    if SNAKEPIT_DB_POOL_SIZE > 0:
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": min(2, SNAKEPIT_DB_POOL_SIZE),
            "max_size": SNAKEPIT_DB_POOL_SIZE,
            # A request waits this long for a free connection, then fails rather than queue forever.
            "timeout": float(os.environ.get("SNAKEPIT_DB_POOL_TIMEOUT", "10")),
            "max_idle": float(os.environ.get("SNAKEPIT_DB_POOL_MAX_IDLE", "60")),
        }
    # Behind PgBouncer in transaction mode a session lasts one transaction, so nothing may outlive
    # one: Django's iterator() would otherwise declare WITH HOLD cursors (replay_matches, verify_matches
    # and rebuild_* use it), and psycopg's prepared statements stay off (Django's default, kept
    # explicit here). Nothing else relies on the session: no advisory locks, SET only as SET LOCAL,
    # COPY inside the appending transaction, and PgBouncer replays TimeZone and application_name.
    if SNAKEPIT_DB_PGBOUNCER:
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None
# The service connects as a role that owns nothing; the tables' owner only migrates. With this set
# (PostgreSQL), `manage.py migrate` connects with its user, password, host and port to DATABASE_URL's
# database, then grants DATABASE_URL's user what the service needs (deploy/README.md, "Database roles").
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache and broker ---------------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0" if IN_CI else "")
# A Redis that does not answer fails a cache call within these seconds (redis-py waits for ever by
# default): callers degrade rather than hang (api/throttles.py, snakepit/health.py).
REDIS_CACHE_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 2}
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": REDIS_CACHE_OPTIONS,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "snakepit"}}
# The operations page's records (the last read-model checks, failed Celery tasks: snakepit/pages/
# ops_records.py) are written by workers and commands and read by the web process: Redis when there is
# one, else files under var/, never a cache private to one process.
CACHES["ops"] = (
    {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "snakepit-ops",
    }
    if REDIS_URL
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "ops-cache"),
    }
)

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL or "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = Path(os.environ.get("SNAKEPIT_BROKER_DIR", VAR_DIR / "broker"))
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    if _broker_dir.stat().st_uid == os.geteuid():
        _broker_dir.chmod(0o700)  # it may live outside var/ (SNAKEPIT_BROKER_DIR)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
else:
    # A task whose worker died is handed to another worker once visibility_timeout has passed and a
    # restore sweep runs. Kombu's defaults (an hour; a sweep every 10 s x 10) would leave a bot match
    # hanging that long; these resume it within about five minutes. A task that outlives the timeout
    # may run twice at once: the per-match lock and appends at the log's head make that harmless.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
        "unacked_restore_interval": int(os.environ.get("CELERY_UNACKED_RESTORE_INTERVAL", "10")),
        "unacked_restore_throttle": 1,
    }
CELERY_TASK_ACKS_LATE = True
# Celery's Django fixup closes every database connection before and after each task unless this is
# set: a worker then opens a new connection per task (a sixth of a bot match's time). With it, the
# connection is kept for this many tasks (and Django's CONN_MAX_AGE and health checks still apply).
CELERY_DB_REUSE_MAX = int(os.environ.get("CELERY_DB_REUSE_MAX", "1000"))
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_flag("CELERY_TASK_ALWAYS_EAGER")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Static entries (beat copies them into its database schedule); each ladder adds its own round entry.
CELERY_BEAT_SCHEDULE = {
    "ladders-enforce-deadlines": {"task": "ratings.tasks.ladders_enforce_deadlines", "schedule": 60.0},
    "matches-resume-stalled": {"task": "matches.tasks.matches_resume_stalled", "schedule": 60.0},
    "tournaments-record-missing": {"task": "tournaments.tasks.tournaments_record_missing", "schedule": 60.0},
    "tournaments-start-due-rounds": {
        "task": "tournaments.tasks.tournaments_start_due_rounds",
        "schedule": 60.0,
    },
    "decks-ban-lists-apply": {"task": "decks.tasks.ban_lists_apply", "schedule": 60.0},
    "bots-resume-stalled": {"task": "bots.tasks.bots_resume_stalled", "schedule": 60.0},
}
CELERY_TIMEZONE = "UTC"

# --- auth, i18n, static -------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/accounts/sign-in/"  # the pages' sign-in (snakepit/pages/accounts.py); the API keeps its own
LOGIN_REDIRECT_URL = "/api/"
LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"  # `collectstatic` fills it for production (deploy/README.md)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve app static files (the Swagger UI's, the browsable API's) straight from the packages as well,
# so the embedded default and the tests need no collectstatic step.
WHITENOISE_USE_FINDERS = True

# --- REST API -----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.BoundedJSONParser",
        "api.parsers.BoundedFormParser",
        "api.parsers.BoundedMultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Snakepit API",
    "DESCRIPTION": "Matches as append-only event logs, rebuilt by pure rules engines. "
    'Every 4xx body is {"code", "detail"}; codes are listed in docs/api.md.',
    "VERSION": "0.1.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Enums keep the declaring field's name; the error component, 4xx responses and links come from one hook.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.postprocess_schema",
    ],
}

# Requests per client (per user when signed in; staff are exempt), counted in the cache (api/throttles.py).
SNAKEPIT_RATES = {
    "sign_in": os.environ.get("SNAKEPIT_RATE_SIGN_IN", "10/min"),
    "create": os.environ.get("SNAKEPIT_RATE_CREATE", "60/hour"),
    "actions": os.environ.get("SNAKEPIT_RATE_ACTIONS", "600/min"),
}
# What one user (staff excepted) may have going at once, and how often a ladder of theirs may play.
SNAKEPIT_QUOTAS = {
    "bot_matches": int(os.environ.get("SNAKEPIT_QUOTA_BOT_MATCHES", "10")),  # running, bots only
    "ladders": int(os.environ.get("SNAKEPIT_QUOTA_LADDERS", "5")),  # active, created by them
    "tournaments": int(os.environ.get("SNAKEPIT_QUOTA_TOURNAMENTS", "10")),  # not finished, organised by them
    "min_round_interval_seconds": int(os.environ.get("SNAKEPIT_MIN_ROUND_INTERVAL", "300")),
}

# How many events one request may append on its own (chance and bot moves after a human action):
# a guard against an engine that never hands the turn back, not a game rule.
SNAKEPIT_MAX_AUTO_EVENTS = int(os.environ.get("SNAKEPIT_MAX_AUTO_EVENTS", "5000"))
# Events a worker appends per transaction while playing chance and bots.
SNAKEPIT_ADVANCE_CHUNK = int(os.environ.get("SNAKEPIT_ADVANCE_CHUNK", "200"))
# Running matches whose live state each process keeps in memory (matches/live.py), least recent out.
SNAKEPIT_LIVE_MATCHES = int(os.environ.get("SNAKEPIT_LIVE_MATCHES", "5000"))
# Event streams (api/streams.py, docs/api.md "Streams"): how often a stream looks at the log itself
# (0: every second on the embedded default, every 15 s where Redis announces appends), how many one
# web process serves at once (more are answered 503), and how long one lasts before the client is
# asked to reconnect (it resumes with Last-Event-ID).
SNAKEPIT_STREAM_POLL_SECONDS = float(os.environ.get("SNAKEPIT_STREAM_POLL_SECONDS", "0"))
SNAKEPIT_STREAMS_MAX = int(os.environ.get("SNAKEPIT_STREAMS_MAX", "5000"))
SNAKEPIT_STREAM_MAX_SECONDS = int(os.environ.get("SNAKEPIT_STREAM_MAX_SECONDS", "3600"))
# A match whose chance or bot move is this many seconds overdue is handed to a worker again.
SNAKEPIT_STALLED_AFTER_SECONDS = int(os.environ.get("SNAKEPIT_STALLED_AFTER_SECONDS", "120"))
# Matches with people take entropy from each seat (docs/fairness.md); a seat has this long to commit,
# then to reveal, before it lapses and its part defaults.
SNAKEPIT_CONTRIBUTED_ENTROPY = env_flag("SNAKEPIT_CONTRIBUTED_ENTROPY", True)
SNAKEPIT_ENTROPY_WINDOW_SECONDS = int(os.environ.get("SNAKEPIT_ENTROPY_WINDOW_SECONDS", "300"))

# Called with (match=, versions={seat: bot version id}) when a ladder match seats uploaded bots.
SNAKEPIT_LADDER_UPLOADED_BOTS = "bots.tasks.ladder_match_bots_start"
# Options set on every new match of a game from what holds when it is created (matches.services):
# a Rag'n'Guns match keeps the ban list in effect at its creation.
SNAKEPIT_MATCH_OPTIONS_AT_CREATION = {"ragnguns": "decks.selectors.ragnguns_match_options"}

# Uploaded bots (docs/bots.md): a move's time and the match's overage bank, upload limits, and the
# development-only switch that runs bots without namespaces where the server cannot make them.
SNAKEPIT_BOTS_MOVE_MS = int(os.environ.get("SNAKEPIT_BOTS_MOVE_MS", "1000"))
SNAKEPIT_BOTS_OVERAGE_MS = int(os.environ.get("SNAKEPIT_BOTS_OVERAGE_MS", "10000"))
SNAKEPIT_BOTS_MAX_SOURCE_BYTES = int(os.environ.get("SNAKEPIT_BOTS_MAX_SOURCE_BYTES", str(64 * 1024)))
SNAKEPIT_BOTS_VERSIONS_PER_DAY = int(os.environ.get("SNAKEPIT_BOTS_VERSIONS_PER_DAY", "20"))
# The size of an uploaded bot's scratch tmpfs: its files and everything it writes (bots/sandbox.py).
SNAKEPIT_BOTS_SCRATCH_BYTES = int(os.environ.get("SNAKEPIT_BOTS_SCRATCH_BYTES", str(16 * 1024 * 1024)))
SNAKEPIT_BOTS_ALLOW_UNSANDBOXED = env_flag("SNAKEPIT_BOTS_ALLOW_UNSANDBOXED")
SNAKEPIT_BOTS_HTTP_ALLOW_PRIVATE = env_flag(
    "SNAKEPIT_BOTS_HTTP_ALLOW_PRIVATE"
)  # HTTP bots on private addresses

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
