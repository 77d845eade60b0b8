# syntax=docker/dockerfile:1
# One runtime image for web, worker and beat (the command differs per service in docker-compose.yml),
# built in three stages: the UI bundle (Node), the agent's wheel (it carries `spark_agent.protocol`,
# which the server imports), and the runtime: Django, DRF, Celery, the neo4j driver and the
# PostgreSQL client only. No pyspark, no embedded graph engine, no JVM; it runs as a non-root user.
# `make dist` builds the same UI bundle and wheel without Docker; tests/deploy checks this file.

FROM node:20-bookworm-slim AS ui
WORKDIR /ui
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim AS agent-wheel
WORKDIR /src
COPY packaging/agent/ packaging/agent/
COPY spark_agent/ spark_agent/
RUN pip install --no-cache-dir hatchling==1.33.0 \
    && pip wheel --no-cache-dir --no-deps --no-build-isolation -w /wheels packaging/agent

FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TRIBUTARY_VAR_DIR=/var/lib/tributary
RUN groupadd --system --gid 10001 tributary \
    && useradd --system --uid 10001 --gid tributary --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin tributary \
    && mkdir -p /var/lib/tributary \
    && chown tributary:tributary /var/lib/tributary
WORKDIR /app
COPY requirements/runtime.txt requirements/runtime.txt
RUN pip install --no-cache-dir -r requirements/runtime.txt
COPY --from=agent-wheel /wheels/ /tmp/wheels/
RUN pip install --no-cache-dir --no-deps /tmp/wheels/*.whl && rm -rf /tmp/wheels
COPY manage.py ./
COPY lineage_app/ lineage_app/
COPY --from=ui /ui/dist/ frontend/dist/
RUN SECRET_KEY=collectstatic-only TRIBUTARY_VAR_DIR=/tmp python manage.py collectstatic --noinput
USER 10001:10001
EXPOSE 8000
CMD ["gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", "0.0.0.0:8000"]
