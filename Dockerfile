# The bot in webhook mode: a small image that runs as an unprivileged user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Exactly the versions in the lock file, checked by hash (README: "The lock file").
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock
# The bot itself, built with the locked setuptools and Babel (no download); the build
# compiles the catalogues into the package (setup.py).
COPY pyproject.toml setup.py MANIFEST.in README.md LICENSE ./
COPY tgbot ./tgbot
COPY locales ./locales
RUN pip install --no-deps --no-build-isolation . \
    && useradd --create-home --uid 10001 coup && mkdir /data && chown coup /data

ENV DATA_DIR=/data \
    LISTEN_HOST=0.0.0.0 \
    PORT=8080

USER coup
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"
CMD ["coup-bot"]
