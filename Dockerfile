# The bot in webhook mode: a small image that runs as an unprivileged user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY tgbot ./tgbot
COPY locales ./locales
RUN pip install . && useradd --create-home --uid 10001 coup && mkdir /data && chown coup /data

ENV LOCALES_DIR=/app/locales \
    DATA_DIR=/data \
    LISTEN_HOST=0.0.0.0 \
    PORT=8080

USER coup
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"
CMD ["coup-bot"]
