# syntax=docker/dockerfile:1
# One runtime image for web, worker and beat (the command differs per service in docker-compose.yml),
# built in three stages: the UI bundle (Node), the two wheels (the server's, with that UI inside it, and
# the agent's, which carries the relay and the `lineage_protocol` the server imports), and the runtime: the runtime
# requirements and the two wheels installed, no source tree. Django, DRF, Celery, the neo4j driver and
# the PostgreSQL client only: no pyspark, no embedded graph engine, no JVM; it runs as a non-root user.
# `make dist` builds the same wheels without Docker; tests/deploy checks this file.

FROM node:20-bookworm-slim AS ui
WORKDIR /ui
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim AS wheels
WORKDIR /src
COPY packaging/ packaging/
COPY requirements/runtime.txt requirements/runtime.txt
COPY lineage_protocol/ lineage_protocol/
COPY lineage_relay/ lineage_relay/
COPY spark_agent/ spark_agent/
COPY lineage_app/ lineage_app/
COPY --from=ui /ui/dist/ frontend/dist/
RUN pip install --no-cache-dir hatchling==1.33.0 \
    && pip wheel --no-cache-dir --no-deps --no-build-isolation -w /wheels packaging/agent packaging/server

FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TRIBUTARY_VAR_DIR=/var/lib/tributary \
    STATIC_ROOT=/app/staticfiles
RUN groupadd --system --gid 10001 tributary \
    && useradd --system --uid 10001 --gid tributary --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin tributary \
    && mkdir -p /var/lib/tributary/keys \
    && chown -R tributary:tributary /var/lib/tributary \
    && chmod 700 /var/lib/tributary/keys
WORKDIR /app
# The dependencies first, in their own layer (they change less often than the code): the server wheel's
# dependencies are exactly this file, so installing the wheels below adds only the two of them.
COPY requirements/runtime.txt /tmp/runtime.txt
RUN pip install --no-cache-dir -r /tmp/runtime.txt && rm /tmp/runtime.txt
COPY --from=wheels /wheels/ /tmp/wheels/
RUN pip install --no-cache-dir --no-index /tmp/wheels/*.whl && rm -rf /tmp/wheels
RUN SECRET_KEY=collectstatic-only TRIBUTARY_VAR_DIR=/tmp tributary-server collectstatic --noinput
USER 10001:10001
EXPOSE 8000
CMD ["gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", "0.0.0.0:8000"]
