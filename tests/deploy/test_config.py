"""Configuration: clear one-line errors, no token in output, the compose file validates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tgbot.config import DAY_S, Config, ConfigError, Deadlines, load_config

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:SECRET-token-value"


def run_bot(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_", "REDIS"))}
    return subprocess.run(
        [sys.executable, "-m", "tgbot"],
        env={**{k: v for k, v in clean.items() if k != "SERVE"}, **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({}, "BOT_TOKEN"),
        ({"BOT_TOKEN": "nonsense"}, "BOT_TOKEN"),
        ({"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "http://plain"}, "WEBHOOK_URL"),
        ({"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.example"}, "WEBHOOK_SECRET"),
        # A short secret is guessed by trying: 31 characters are refused, as is one.
        (
            {"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.example", "WEBHOOK_SECRET": "s" * 31},
            "WEBHOOK_SECRET",
        ),
        (
            {"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.example", "WEBHOOK_SECRET": "s"},
            "WEBHOOK_SECRET",
        ),
        ({"BOT_TOKEN": TOKEN, "PORT": "eighty"}, "PORT"),
        ({"BOT_TOKEN": TOKEN, "TURN_SECONDS": "1"}, "TURN_SECONDS"),
        ({"BOT_TOKEN": TOKEN, "REDIS_URL": "localhost:6379"}, "REDIS_URL"),
        ({"BOT_TOKEN": TOKEN, "LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
        ({"BOT_TOKEN": TOKEN, "MESSAGES_PER_SECOND": "5000"}, "MESSAGES_PER_SECOND"),
        ({"BOT_TOKEN": TOKEN, "SERVE": "everything"}, "SERVE"),
        # A process that takes no updates by webhook would poll: it has no listener.
        ({"BOT_TOKEN": TOKEN, "SERVE": "webhook"}, "SERVE=webhook"),
    ],
)
def test_bad_configuration_stops_with_one_line(
    env: dict[str, str], variable: str, tmp_path: Path
) -> None:
    result = run_bot(env, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert variable in lines[0] and "Traceback" not in result.stderr
    assert "SECRET-token-value" not in result.stderr + result.stdout


def test_dotenv_is_read_and_environment_wins(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"BOT_TOKEN={TOKEN}\nTURN_SECONDS=120\n# comment\nPORT=9000\n")
    config = load_config({"PORT": "9100", "MESSAGES_PER_SECOND": "1000"}, dotenv)
    assert config.bot_token == TOKEN
    assert config.deadlines.turn == 120 and config.listen_port == 9100
    assert config.messages_per_second == 1000
    assert "SECRET" not in repr(config)


def test_unset_variables_take_the_settings_classes_defaults(tmp_path: Path) -> None:
    config = load_config({"BOT_TOKEN": TOKEN}, dotenv=tmp_path / "none.env")
    assert config == Config(bot_token=TOKEN) and config.deadlines == Deadlines()
    assert config.record_ttl_s == config.record_days * DAY_S == 30 * 86400
    longest = load_config({"BOT_TOKEN": TOKEN, "TURN_SECONDS": "86400"}, tmp_path / "none.env")
    assert longest.deadlines.turn == DAY_S
    with pytest.raises(ConfigError, match="TURN_SECONDS"):
        load_config({"BOT_TOKEN": TOKEN, "TURN_SECONDS": "86401"}, tmp_path / "none.env")


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:7000,unix:///tmp/redis.sock",
        "redis://127.0.0.1:7000,127.0.0.1:7001",
        "redis://:hunter2@127.0.0.1:7000,redis://127.0.0.1:7001",
        "redis://:hunter2@127.0.0.1:7000,redis://:hunter2@127.0.0.1:x",
        "redis://127.0.0.1:7000,redis://",
    ],
)
def test_several_redis_nodes_are_one_clusters_urls(url: str) -> None:
    with pytest.raises(ConfigError, match=r"^REDIS_URL") as err:
        load_config({"BOT_TOKEN": TOKEN, "REDIS_URL": url}, Path("/nonexistent/.env"))
    assert "\n" not in str(err.value) and "hunter2" not in str(err.value)
    seeds = "rediss://u:pw@h1:7000/0?x=1, rediss://u:pw@h2:7001/0?x=1"
    config = load_config({"BOT_TOKEN": TOKEN, "REDIS_URL": seeds}, Path("/nonexistent/.env"))
    assert config.redis_url == seeds


def test_missing_token_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="BOT_TOKEN"):
        load_config({}, Path("/nonexistent/.env"))


def test_compose_file_validates_against_the_compose_spec() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.compose-spec",
            str(ROOT / "docker-compose.yml"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_the_bot_behind_a_healthy_persistent_redis() -> None:
    from ruamel.yaml import YAML  # comes with check-jsonschema

    compose = YAML(typ="safe").load((ROOT / "docker-compose.yml").read_text())
    redis, bot = compose["services"]["redis"], compose["services"]["bot"]
    command = redis["command"]
    assert "--appendonly" in command and "redis-data:/data" in redis["volumes"]
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert "--maxmemory" in command and "healthcheck" in redis
    assert bot["depends_on"]["redis"]["condition"] == "service_healthy"
    for variable in ("BOT_TOKEN", "WEBHOOK_URL", "WEBHOOK_SECRET"):
        assert ":?" in bot["environment"][variable]
    # Every documented setting reaches the container: the whole .env file is passed.
    assert [entry["path"] for entry in bot["env_file"]] == [".env"]
    assert all(port.startswith("127.0.0.1:") for port in bot["ports"])
    # The Mini App on a process of its own: a burst of pages never holds up the updates.
    app = compose["services"]["app"]
    assert (bot["environment"]["SERVE"], app["environment"]["SERVE"]) == ("webhook", "app")
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    assert [entry["path"] for entry in app["env_file"]] == [".env"]
    assert all(port.startswith("127.0.0.1:") for port in app["ports"])
    assert app["ports"] != bot["ports"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "\nUSER coup" in dockerfile and "HEALTHCHECK" in dockerfile
    assert "--require-hashes -r requirements.lock" in dockerfile


def test_every_setting_the_code_reads_is_documented() -> None:
    import re

    read = set(re.findall(r'"([A-Z][A-Z_]+)"', (ROOT / "tgbot" / "config.py").read_text()))
    read -= {"INFO", "DEBUG", "WARNING", "ERROR"}
    table = (ROOT / "README.md").read_text().split("## Configuration", 1)[1]
    documented = set(re.findall(r"`([A-Z][A-Z_]+)`", table))
    assert read <= documented, f"undocumented: {sorted(read - documented)}"


def test_the_lock_file_pins_every_dependency_with_hashes() -> None:
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lock = (ROOT / "requirements.lock").read_text()
    pinned = {
        m.group(1).lower().replace("_", "-")
        for m in re.finditer(r"^([A-Za-z0-9_.-]+)==\S+", lock, re.MULTILINE)
    }
    for requirement in project["dependencies"]:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)
        assert name is not None
        assert name.group(0).lower() in pinned, (
            f"{name.group(0)} is not in requirements.lock: refresh it (README)"
        )
    lines = lock.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^[A-Za-z0-9_.-]+==", line):
            assert "--hash=sha256:" in lines[i + 1], f"{line}: no hash"
