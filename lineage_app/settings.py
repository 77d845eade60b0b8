"""Tributary's one settings module: every value comes from the environment, with embedded defaults."""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF

from lineage_app.rate_limits import rate_limit_parse

BASE_DIR = Path(__file__).resolve().parent.parent
# A source checkout has manage.py beside the package; the server installed from its wheel
# (packaging/server) lives in site-packages, where nothing of an installation's own may be written.
SOURCE_CHECKOUT = (BASE_DIR / "manage.py").is_file()
# Where an installation keeps its secret key, embedded database and graph, logs and collected static
# files: var/ in a checkout; for an installed server the user's data directory (XDG), unless set.
_INSTALLED_VAR_DIR = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "tributary"
VAR_DIR = Path(os.environ.get("TRIBUTARY_VAR_DIR") or (BASE_DIR / "var" if SOURCE_CHECKOUT else _INSTALLED_VAR_DIR))


def env(name: str, default: str = "") -> str:
    """Read `name`, or the contents of the file named by `<name>_FILE` (for secrets)."""
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        return Path(file_path).read_text().strip()
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    return env(name, "1" if default else "0").lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    return int(env(name, str(default)))


def _embedded_secret_key() -> str:
    """A per-installation key kept under `var/`, so the embedded mode needs no setup."""
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = env("SECRET_KEY") or _embedded_secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = [h for h in env("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in env("CSRF_TRUSTED_ORIGINS").split(",") if o]

# --- HTTPS (README, "Production"): one switch, TRIBUTARY_TLS, says where TLS ends ------------------------
# off (default): plain http, as `make run` serves on localhost; nothing below applies.
# proxy: a reverse proxy in front terminates TLS and sets `X-Forwarded-Proto: https` (overwriting what a client
#   sent); Django trusts that header, so the web port must be reachable only through the proxy.
# direct: the web server itself speaks TLS (gunicorn `--certfile` / `--keyfile`); no proxy header is trusted.
# Both redirect plain http to https, send HSTS and mark the session and CSRF cookies secure. Probes and
# Prometheus speak plain http to the web process itself, so /healthz and /metrics are never redirected.
TLS = env("TRIBUTARY_TLS", "off").lower()
if TLS not in {"off", "proxy", "direct"}:
    raise ValueError(f"TRIBUTARY_TLS must be off, proxy or direct (got {TLS!r})")
if TLS != "off":
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("TRIBUTARY_HSTS_SECONDS", 365 * 24 * 3600)
    # HSTS covers this host's own subdomains, not its siblings: rarely any, so on unless said otherwise.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("TRIBUTARY_HSTS_INCLUDE_SUBDOMAINS", True)
    # Preloading commits the whole registrable domain to https in browsers' built-in lists, a decision for
    # the domain's owner: off unless asked for, and then `check --deploy` need not keep suggesting it.
    SECURE_HSTS_PRELOAD = env_bool("TRIBUTARY_HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
if TLS == "proxy":
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "lineage_app.accounts",
    "lineage_app.ingest",
    "lineage_app.signatures",
    "lineage_app.ledger",
    "lineage_app.graph",
    "lineage_app.explorer",
    "lineage_app.ownership",
    "lineage_app.notify",
    "lineage_app.alerts",
    "lineage_app.reports",
    "lineage_app.health",
    "lineage_app.stack",
    "lineage_app.web",
    "lineage_app.warmup",
]

MIDDLEWARE = [
    # Outermost, so that its latency and log line cover the whole answer.
    "lineage_app.observability.middleware.RequestObservationMiddleware",
    "lineage_app.response_release.ResponseReleaseMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: turns a sign-in refused by a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "lineage_app.urls"
WSGI_APPLICATION = "lineage_app.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Relational database: the durable event log -------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'tributary.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share one file: WAL lets readers run beside the writer,
    # IMMEDIATE takes the write lock up front instead of failing on upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL;",
    }
    # A file, not memory, so worker processes started by the tests share the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis and Celery -----------------------------------------------------------------------
REDIS_URL = env("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# An accept must not hang on a dead broker: the sweeper re-enqueues what it missed.
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 0, "socket_connect_timeout": 1, "socket_timeout": 2}
CELERY_TASK_PUBLISH_RETRY = False
# One queue, two speeds: a worker takes the messages of lower priority numbers first (Redis: 0 is the
# highest). Applying a backlog of events goes after everything else (deliveries of alert messages, beat's
# checks), so that an on-call engineer's message never waits behind applies queued before it; apply's
# latency is what the event log absorbs. docs/alerts.md has the before and after.
CELERY_TASK_ROUTES = {"lineage_app.ingest.tasks.apply_events": {"priority": 6}}
# Workers apply events at a lower CPU priority than the web process accepts them: producers wait
# for an accept, nobody waits on an apply. When both want the CPU, accepting wins and the log
# absorbs the difference (0 turns this off).
WORKER_NICENESS = env_int("WORKER_NICENESS", 10)
CELERY_BEAT_SCHEDULE = {
    "sweep-pending-events": {
        "task": "lineage_app.ingest.tasks.sweep_pending_events",
        "schedule": float(env("INGEST_SWEEP_INTERVAL_SECONDS", "15")),
    },
    "settle-unfolded-runs": {
        "task": "lineage_app.ingest.tasks.settle_unfolded_runs",
        "schedule": float(env("INGEST_SWEEP_INTERVAL_SECONDS", "15")),
    },
}

# --- Graph engine (Neo4j 5 in production, embedded ArcadeDB by default) -------------------
NEO4J_URI = env("NEO4J_URI", "bolt://127.0.0.1:7687")
NEO4J_USER = env("NEO4J_USER", "root")
NEO4J_PASSWORD = env("NEO4J_PASSWORD", "tributary-embedded")
NEO4J_DATABASE = env("NEO4J_DATABASE", "lineage")
GRAPH_EMBEDDED_DIR = Path(env("GRAPH_EMBEDDED_DIR", str(VAR_DIR / "graph")))
GRAPH_EMBEDDED_HTTP_PORT = env_int("GRAPH_EMBEDDED_HTTP_PORT", 2480)
# The embedded engine shares the machine with the web process; most of its work is applying
# events, so, like the workers (WORKER_NICENESS), it yields the CPU to accepting them.
GRAPH_EMBEDDED_NICENESS = env_int("GRAPH_EMBEDDED_NICENESS", 10)

# --- Ingestion limits ------------------------------------------------------------------------
INGEST_MAX_EVENT_BYTES = env_int("INGEST_MAX_EVENT_BYTES", 1024 * 1024)
INGEST_MAX_BATCH_EVENTS = env_int("INGEST_MAX_BATCH_EVENTS", 1000)
INGEST_MAX_BATCH_BYTES = env_int("INGEST_MAX_BATCH_BYTES", 16 * 1024 * 1024)
INGEST_MAX_JSON_DEPTH = env_int("INGEST_MAX_JSON_DEPTH", 64)
# Python's JSON decoder recurses once per level: far below its recursion limit, or a body within
# the limit would fail to parse with a RecursionError instead of a clear 400.
if not 1 <= INGEST_MAX_JSON_DEPTH <= 500:
    raise ValueError(f"INGEST_MAX_JSON_DEPTH must be between 1 and 500 (got {INGEST_MAX_JSON_DEPTH})")
INGEST_APPLY_BATCH_SIZE = env_int("INGEST_APPLY_BATCH_SIZE", 200)
INGEST_SWEEP_MIN_AGE_SECONDS = env_int("INGEST_SWEEP_MIN_AGE_SECONDS", 10)
INGEST_RETRY_BACKOFF_MAX_SECONDS = env_int("INGEST_RETRY_BACKOFF_MAX_SECONDS", 120)
# How long an apply task holds the events it took: other workers leave them alone until then. A worker killed
# holding them delays them this long (the sweeper sends them again); one still applying after it is harmless, as
# applying twice is. A batch takes seconds; the driver gives up a transaction after 15.
INGEST_CLAIM_SECONDS = env_int("INGEST_CLAIM_SECONDS", 30)
STREAMING_STALL_INTERVALS = env_int("STREAMING_STALL_INTERVALS", 3)  # silent intervals before a query is stalled
DATA_UPLOAD_MAX_MEMORY_SIZE = INGEST_MAX_BATCH_BYTES + 1024

# --- Event log retention: beat prunes applied events older than this many days, daily; 0 keeps ----
# the log forever. The graph keeps what pruned events built; `export_events` first is the archive.
EVENT_RETENTION_DAYS = env_int("EVENT_RETENTION_DAYS", 0)
EVENT_PRUNE_BATCH_SIZE = env_int("EVENT_PRUNE_BATCH_SIZE", 1000)
# The sampled graph-against-log check (`manage.py verify_graph`, and the beat's, reported in /metrics).
GRAPH_CHECK_SAMPLE = env_int("GRAPH_CHECK_SAMPLE", 200)
CELERY_BEAT_SCHEDULE["check-graph"] = {
    "task": "lineage_app.ingest.tasks.check_graph",
    "schedule": float(env("GRAPH_CHECK_INTERVAL_SECONDS", "300")),
}
CELERY_BEAT_SCHEDULE["check-overdue"] = {"task": "lineage_app.alerts.tasks.check_overdue", "schedule": 300.0}
CELERY_BEAT_SCHEDULE["prune-applied-events"] = {
    "task": "lineage_app.ingest.tasks.prune_applied_events",
    "schedule": float(env("EVENT_PRUNE_INTERVAL_SECONDS", "86400")),
}

# --- Signatures: policy for namespaces without a SignaturePolicy row (off | warn | enforce) ---------
SIGNATURE_POLICY_DEFAULT = env("SIGNATURE_POLICY_DEFAULT", "warn").lower()
if SIGNATURE_POLICY_DEFAULT not in {"off", "warn", "enforce"}:
    raise ValueError(f"SIGNATURE_POLICY_DEFAULT must be off, warn or enforce (got {SIGNATURE_POLICY_DEFAULT!r})")

# --- Facets: an event whose facet fails its schema is kept, applied without the facet and answered
# with a warning (tolerant), or refused with a 400 (strict); FacetPolicy rows override per namespace ---
FACET_POLICY = env("FACET_POLICY", "tolerant").lower()
if FACET_POLICY not in {"strict", "tolerant"}:
    raise ValueError(f"FACET_POLICY must be strict or tolerant (got {FACET_POLICY!r})")

# Experimental: read the `lineage` facet (LineageFacet 1-0-0, OpenLineage PR #4804: explicit dataset -> dataset
# and job -> job lineage) into the graph (docs/facets.md). Off, the facet is kept as sent and shown, never folded.
# Switching it takes effect for events applied from then on: `manage.py rebuild_graph` for the rest.
LINEAGE_FACET_ENABLED = env_bool("LINEAGE_FACET_ENABLED", False)

# --- Lineage in time (docs/time.md) -----------------------------------------------------------------
# An edge a job's completed runs leave out stays current until this many completed runs have left it
# out, the last ending at least this many days after it was last seen; StaleGrace rows override per job
# namespace. Changing them takes effect for each job at its next run: `manage.py rebuild_graph` for all.
LINEAGE_STALE_AFTER_RUNS = env_int("LINEAGE_STALE_AFTER_RUNS", 1)
LINEAGE_STALE_AFTER_DAYS = float(env("LINEAGE_STALE_AFTER_DAYS", "0"))
if LINEAGE_STALE_AFTER_RUNS < 1 or LINEAGE_STALE_AFTER_DAYS < 0:
    raise ValueError("LINEAGE_STALE_AFTER_RUNS must be 1 or more, LINEAGE_STALE_AFTER_DAYS 0 or more")

# --- Alerts (docs/alerts.md) ------------------------------------------------------------------------
# Off: apply hands alerts no change records (no incidents; the API still answers).
ALERTS_ENABLED = env_bool("ALERTS_ENABLED", True)
# A repeat of an open incident's cause within this many hours updates it without a new message.
ALERTS_REPEAT_WINDOW_HOURS = float(env("ALERTS_REPEAT_WINDOW_HOURS", "6"))
# Hops downstream (dataset -> job -> dataset is two) whose assets' owners are told too, and counted in
# the blast radius.
ALERTS_DOWNSTREAM_DEPTH = env_int("ALERTS_DOWNSTREAM_DEPTH", 6)
# Where messages link to: the UI's address as the recipients reach it.
ALERTS_UI_URL = env("ALERTS_UI_URL", "http://localhost:8000").rstrip("/")
# Missed deadlines: a job's cadence is learned from its completions over this many days; it is late
# once the cadence plus this fraction of it (at least 5 minutes) has passed. Beat checks every 5 minutes.
ALERTS_CADENCE_DAYS = float(env("ALERTS_CADENCE_DAYS", "30"))
ALERTS_DEADLINE_GRACE = float(env("ALERTS_DEADLINE_GRACE", "0.25"))
# Stalled streams: a streaming query not ended, silent for STREAMING_STALL_INTERVALS of its progress
# intervals (the UI's `stalled`) and for at least this many minutes, opens a `stream_stalled` incident.
ALERTS_STREAM_STALL_MINUTES = float(env("ALERTS_STREAM_STALL_MINUTES", "10"))
# Ledger gaps: a gap in a signed stream still open this many minutes after it was noticed (events of a
# chain may arrive out of order) opens a `verification` incident; a fork does at once.
ALERTS_LEDGER_GAP_GRACE_MINUTES = float(env("ALERTS_LEDGER_GAP_GRACE_MINUTES", "30"))
if ALERTS_REPEAT_WINDOW_HOURS < 0 or not 0 <= ALERTS_DOWNSTREAM_DEPTH <= 20:
    raise ValueError("ALERTS_REPEAT_WINDOW_HOURS must be 0 or more, ALERTS_DOWNSTREAM_DEPTH from 0 to 20")

# --- Read API ----------------------------------------------------------------------------------
LINEAGE_MAX_DEPTH = env_int("LINEAGE_MAX_DEPTH", 20)
# The node budget of one lineage answer: past it the traversal stops and says `truncated`.
LINEAGE_MAX_NODES = env_int("LINEAGE_MAX_NODES", 2000)
# A dataset or job with more neighbours than this in one hop (one direction) is a hub: the lineage answer
# gives it clusters with counts instead of those neighbours, listed a page at a time by
# `GET /api/v1/lineage/neighbours` (docs/api.md). 0 lists every neighbour, as before.
LINEAGE_CLUSTER_THRESHOLD = env_int("LINEAGE_CLUSTER_THRESHOLD", 50)
if LINEAGE_CLUSTER_THRESHOLD < 0:
    raise ValueError("LINEAGE_CLUSTER_THRESHOLD must be 0 (no clusters) or more")
# An impact export keeps its walk (each node reached: distance, parent, path) in a private SQLite database,
# not the Python heap: pages held in memory up to this many KiB, the rest in an unlinked temporary file
# (SQLITE_TMPDIR, else TMPDIR, else /var/tmp) gone when the response ends (docs/impact.md, Memory).
IMPACT_WALK_CACHE_KB = env_int("IMPACT_WALK_CACHE_KB", 8192)
# The PDF report is built in memory (reportlab): past this many rows it is refused, CSV and JSON are not.
IMPACT_PDF_MAX_ROWS = env_int("IMPACT_PDF_MAX_ROWS", 20000)

# --- Dataset identity (invariant 9, docs/identity.md) ----------------------------------------------
# Site rules renaming whole namespaces, e.g. "hdfs://nn1:8020=hdfs://prod-nn,hdfs://nn2:8020=hdfs://prod-nn".
# Changing them renames datasets: run `manage.py rebuild_graph` afterwards.
NAMESPACE_ALIASES: dict[str, str] = {}
for _rule in env("NAMESPACE_ALIASES").replace(",", " ").split():
    _source, _sep, _target = _rule.partition("=")
    if not (_sep and _source and _target):
        raise ValueError(f"NAMESPACE_ALIASES: expected 'from=to', got {_rule!r}")
    NAMESPACE_ALIASES[_source] = _target

# --- API tokens --------------------------------------------------------------------------------
# How long a process trusts a token it has verified; a revocation elsewhere takes effect within it.
API_TOKEN_CACHE_SECONDS = env_int("API_TOKEN_CACHE_SECONDS", 5)


def rate_limit_setting(name: str, default: str) -> str:
    """A rate limit in the `limits` notation ("12000/minute", "200 per second"), or "unlimited"."""
    value = env(name, default).strip()
    try:
        rate_limit_parse(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return value


# --- API rate limits (docs/security.md) ----------------------------------------------------------
# Requests one API token may make, by its scope; a token's own `rate_limit` (admin) overrides its
# scope's. Counted in Redis (REDIS_URL), so every web process shares each token's count. Past the
# limit: 429 with Retry-After. Logged-in users (the web UI) are not rate limited.
API_RATE_LIMITS = {
    "ingest": rate_limit_setting("API_RATE_LIMIT_INGEST", "12000/minute"),
    "read": rate_limit_setting("API_RATE_LIMIT_READ", "3000/minute"),
    "admin": rate_limit_setting("API_RATE_LIMIT_ADMIN", "600/minute"),
}

# --- Sign-in lockout (django-axes; docs/security.md) ---------------------------------------------
# After LOGIN_FAILURE_LIMIT failed sign-ins for one username, or from one address, further sign-ins
# for that username or from that address are refused, even with the right password, until
# LOGIN_LOCKOUT_MINUTES have passed since the last failure (0: until an admin unlocks) or an admin
# unlocks them. LOGIN_FAILURE_LIMIT=0 turns the lockout off.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15)
# How many reverse proxies in front of the web process add the address they saw to X-Forwarded-For:
# a client's address is then the one the outermost proxy saw. 0: clients connect directly (REMOTE_ADDR).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out sign-in before any password is checked
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = LOGIN_FAILURE_LIMIT > 0
AXES_FAILURE_LIMIT = max(LOGIN_FAILURE_LIMIT, 1)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one alone locks
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES) if LOGIN_LOCKOUT_MINUTES > 0 else None
# Tries refused by a lockout are not failures of their own: the lock lifts on time, whatever is tried meanwhile.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "lineage_app.client_address.client_ip"
AXES_LOCKOUT_CALLABLE = "lineage_app.web.views.login_locked_out"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "lineage_app.accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["lineage_app.accounts.throttling.TokenRateThrottle"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "lineage_app.json_renderer.FastJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "EXCEPTION_HANDLER": "lineage_app.api_errors.json_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tributary API",
    "DESCRIPTION": "OpenLineage ingestion and lineage read API.",
    "VERSION": "1",
    "SERVE_PERMISSIONS": ["lineage_app.accounts.permissions.CanRead"],
    # /api/v1/docs runs Redoc from this server's own static files (drf-spectacular-sidecar), not from a CDN.
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "lineage_app.api_support.rate_limited_responses",
    ],
    # One name per choice set, so the UI's generated types name them (not `State301Enum`).
    "ENUM_NAME_OVERRIDES": {
        "RunStateEnum": "lineage_app.graph.model.RunState",
        "WitnessAlarmKindEnum": "lineage_app.ledger.models.WITNESS_ALARM_KINDS",
        # A lineage walk's direction; one hop's (a declared job dependency's, a hub's neighbours': `upstream` or
        # `downstream` only) is named apart.
        "DirectionEnum": ["both", "downstream", "upstream"],
        "HopDirectionEnum": ["downstream", "upstream"],
        "AlertKindEnum": "lineage_app.alerts.models.RULE_KINDS",
        "IncidentStateEnum": "lineage_app.alerts.models.INCIDENT_STATES",
        "IncidentEventKindEnum": "lineage_app.alerts.models.INCIDENT_EVENT_KINDS",
        "FailedStateEnum": "lineage_app.graph.model.FAILED_STATES",
        "OwnerKindEnum": "lineage_app.graph.model.OWNER_KINDS",
        "LevelEnum": "lineage_app.graph.model.LEVELS",
        "FailureClassificationEnum": "lineage_app.graph.failure_cause.CLASSIFICATIONS",
        "LineageNodeTypeEnum": "lineage_app.graph.model.LINEAGE_NODE_TYPES",
        "AssetTypeEnum": "lineage_app.graph.model.ASSET_TYPES",
        "FieldNodeTypeEnum": "lineage_app.graph.model.FIELD_NODE_TYPES",
        "QualityStatusEnum": "lineage_app.graph.quality.QUALITY_STATUSES",
        "CheckOutcomeEnum": "lineage_app.graph.quality.CHECK_OUTCOMES",
        "CheckFacetEnum": "lineage_app.graph.quality.CHECK_FACETS",
        "FailureStateEnum": "lineage_app.graph.model.FAILURE_STATES",
        "DestinationKindEnum": "lineage_app.notify.models.DESTINATION_KINDS",
        "DeliveryStateEnum": "lineage_app.notify.models.DELIVERY_STATES",
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
# A source checkout has the built UI in frontend/dist and collects static files into staticfiles/
# beside it. The installed server carries the built UI inside the package (lineage_app/ui) and
# collects into the var directory. STATIC_ROOT overrides.
STATIC_ROOT = Path(env("STATIC_ROOT") or (BASE_DIR / "staticfiles" if SOURCE_CHECKOUT else VAR_DIR / "staticfiles"))
FRONTEND_DIST = BASE_DIR / "frontend" / "dist" if SOURCE_CHECKOUT else Path(__file__).resolve().parent / "ui"
# The built UI's assets (hashed file names) are collected and served by WhiteNoise.
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.exists() else []
# --- Browser security headers -----------------------------------------------------------------------
# Every page runs only this server's own scripts and styles (the built UI, the admin's, Redoc's), talks
# only to this server and may not be framed. No inline script or style: the login page and the UI keep
# theirs in static files. SecurityMiddleware adds `nosniff`, `Referrer-Policy: same-origin` and
# `Cross-Origin-Opener-Policy: same-origin` (Django's defaults); XFrameOptionsMiddleware `DENY`.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "worker-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# --- Notifications (docs/notifications.md) -------------------------------------------------------
# Deliveries are sent by the workers only, never by apply: a delivery that fails is retried after
# NOTIFY_RETRY_BASE_SECONDS, doubling up to NOTIFY_RETRY_MAX_SECONDS, and dead-lettered after
# NOTIFY_MAX_ATTEMPTS tries. A worker's claim on a delivery lapses after NOTIFY_CLAIM_LEASE_SECONDS
# (it died mid-send), more than a send may take (NOTIFY_TIMEOUT_SECONDS).
NOTIFY_MAX_ATTEMPTS = env_int("NOTIFY_MAX_ATTEMPTS", 8)
NOTIFY_RETRY_BASE_SECONDS = float(env("NOTIFY_RETRY_BASE_SECONDS", "5"))
NOTIFY_RETRY_MAX_SECONDS = float(env("NOTIFY_RETRY_MAX_SECONDS", "900"))
NOTIFY_TIMEOUT_SECONDS = float(env("NOTIFY_TIMEOUT_SECONDS", "10"))
NOTIFY_CLAIM_LEASE_SECONDS = float(env("NOTIFY_CLAIM_LEASE_SECONDS", "120"))
# The beat's sweeper re-enqueues pending deliveries due for longer than this (their message was lost).
NOTIFY_SWEEP_GRACE_SECONDS = float(env("NOTIFY_SWEEP_GRACE_SECONDS", "10"))
if NOTIFY_MAX_ATTEMPTS < 1 or NOTIFY_CLAIM_LEASE_SECONDS <= 2 * NOTIFY_TIMEOUT_SECONDS:
    raise ValueError(
        "NOTIFY_MAX_ATTEMPTS must be 1 or more, NOTIFY_CLAIM_LEASE_SECONDS over twice NOTIFY_TIMEOUT_SECONDS"
    )
# Destinations may be internal services; set this to refuse private, loopback and link-local addresses.
NOTIFY_DENY_PRIVATE_ADDRESSES = env_bool("NOTIFY_DENY_PRIVATE_ADDRESSES", False)
NOTIFY_EMAIL_FROM = env("NOTIFY_EMAIL_FROM", "tributary@localhost")
NOTIFY_MESSAGE_ID_DOMAIN = env("NOTIFY_MESSAGE_ID_DOMAIN", "tributary.local")
# Email goes through Django's backend: SMTP by default; `make run` writes files under var/notifications/mail.
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", str(VAR_DIR / "notifications" / "mail"))
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = NOTIFY_TIMEOUT_SECONDS
CELERY_BEAT_SCHEDULE["sweep-due-deliveries"] = {
    "task": "lineage_app.notify.tasks.sweep_deliveries",
    "schedule": float(env("NOTIFY_SWEEP_INTERVAL_SECONDS", "15")),
}

# --- Observability (docs/observability.md) -------------------------------------------------------
# text: plain messages, as a terminal shows them (`make run`); json: one JSON object per line, with
# the request or task id, for a log pipeline (docker-compose.yml sets it for web, worker and beat).
LOG_FORMAT = env("LOG_FORMAT", "text").lower()
if LOG_FORMAT not in {"text", "json"}:
    raise ValueError(f"LOG_FORMAT must be text or json (got {LOG_FORMAT!r})")
# /metrics (and a worker's metrics port) answer only peers in these networks (empty: any network) that
# carry METRICS_TOKEN as a bearer token (when set). By default: this machine only, no token.
METRICS_TOKEN = env("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = [
    str(ipaddress.ip_network(n.strip(), strict=False))
    for n in env("METRICS_ALLOWED_NETWORKS", "127.0.0.1/32,::1/128").split(",")
    if n.strip()
]
if not (METRICS_TOKEN or METRICS_ALLOWED_NETWORKS):
    raise ValueError("METRICS_ALLOWED_NETWORKS is empty and METRICS_TOKEN unset: metrics would be public")
# A Celery worker serves its own metrics on this port from its main process (0: not at all); it
# needs PROMETHEUS_MULTIPROC_DIR, where its pool processes count: without it, it would report zeros.
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0)
WORKER_METRICS_ADDR = env("WORKER_METRICS_ADDR", "0.0.0.0")
_worker_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if WORKER_METRICS_PORT and not (_worker_metrics_dir and Path(_worker_metrics_dir).is_dir()):
    raise ValueError(
        "WORKER_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR set to an existing directory private to the worker"
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "lineage_app.observability.logs.JsonFormatter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", **({"formatter": "json"} if LOG_FORMAT == "json" else {})}
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        "neo4j": {"level": "WARNING"},
        # django-axes says each step of every sign-in; `lineage_app.accounts.lockout` logs the failures and
        # lockouts as structured lines, so only axes' errors are kept.
        "axes": {"level": "ERROR"},
        # Python warnings as log lines too (captured below), so a JSON log has no plain-text line.
        "py.warnings": {"handlers": ["console"], "propagate": False},
    },
}
if LOG_FORMAT == "json":
    logging.captureWarnings(True)  # warnings go to the `py.warnings` logger instead of straight to stderr

# --- The transparency log (docs/ledger.md, "The transparency log") -------------------------------------
# Every accepted event is a leaf; beat signs a checkpoint every LEDGER_CHECKPOINT_SECONDS when the log grew,
# and accepting asks for one as soon as LEDGER_CHECKPOINT_EVENTS more events were accepted.
LEDGER_CHECKPOINT_SECONDS = env_int("LEDGER_CHECKPOINT_SECONDS", 60)
LEDGER_CHECKPOINT_EVENTS = env_int("LEDGER_CHECKPOINT_EVENTS", 10000)
if LEDGER_CHECKPOINT_SECONDS < 1 or LEDGER_CHECKPOINT_EVENTS < 1:
    raise ValueError("LEDGER_CHECKPOINT_SECONDS and LEDGER_CHECKPOINT_EVENTS must be 1 or more")
# The log's name in its checkpoints (a schema-less URL, e.g. `lineage.example.com/log`): fixed at the first
# checkpoint; empty picks `tributary.invalid/<random>` then.
LEDGER_ORIGIN = env("LEDGER_ORIGIN")
# The server's Ed25519 checkpoint key (PKCS#8 PEM; or LEDGER_SIGNING_KEY_FILE). Unset: a key made once under
# var/keys/ledger.key. Rotate by configuring a new one: the keys that signed before stay valid for verifiers.
LEDGER_SIGNING_KEY = env("LEDGER_SIGNING_KEY")
LEDGER_SIGNING_KEY_PATH = Path(env("LEDGER_SIGNING_KEY_PATH", str(VAR_DIR / "keys" / "ledger.key")))
CELERY_BEAT_SCHEDULE["checkpoint-log"] = {
    "task": "lineage_app.ingest.tasks.checkpoint_log",
    "schedule": float(LEDGER_CHECKPOINT_SECONDS),
}
