# One image for web, worker and beat (the command differs per service in docker-compose.yml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN TRIBUTARY_VAR_DIR=/tmp SECRET_KEY=build python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", "0.0.0.0:8000"]
