"""Secure by default: no debug pages unless asked for, and a real secret without configuring one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def settings_in_a_fresh_process(tmp_path: Path, **env: str) -> dict[str, str]:
    code = (
        "from django.conf import settings; import django; django.setup();"
        "print(settings.DEBUG); print(settings.SECRET_KEY)"
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("DJANGO_DEBUG", "DJANGO_SECRET_KEY")}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "snakepit.settings",
            "SNAKEPIT_VAR_DIR": str(tmp_path),
            **env,
        },
    )
    debug, secret = result.stdout.split()
    return {"debug": debug, "secret": secret}


def test_debug_is_off_and_the_secret_is_random_and_kept_unless_configured(tmp_path):
    first = settings_in_a_fresh_process(tmp_path)
    assert first["debug"] == "False"
    assert len(first["secret"]) >= 50 and "snakepit" not in first["secret"]
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # its owner's alone
    assert settings_in_a_fresh_process(tmp_path)["secret"] == first["secret"]  # kept across restarts
    assert settings_in_a_fresh_process(tmp_path / "elsewhere")["secret"] != first["secret"]
    configured = settings_in_a_fresh_process(
        tmp_path, DJANGO_SECRET_KEY="from-the-environment", DJANGO_DEBUG="1"
    )
    assert configured == {"debug": "True", "secret": "from-the-environment"}


def test_the_documented_production_settings_pass_the_deploy_check(tmp_path):
    production = {
        "DJANGO_SECRET_KEY": "k" * 10 + os.urandom(32).hex(),
        "DJANGO_ALLOWED_HOSTS": "snakepit.example.org",
        "DJANGO_BEHIND_TLS": "1",
    }
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, "SNAKEPIT_VAR_DIR": str(tmp_path), **production},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    example = (ROOT / "deploy" / "snakepit.env.example").read_text()
    assert all(f"{name}=" in example for name in production), "the example names every production variable"
    # Without TLS (the embedded default) the same check names what is missing: it is not silenced.
    plain = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, "SNAKEPIT_VAR_DIR": str(tmp_path), **production, "DJANGO_BEHIND_TLS": "0"},
    )
    assert plain.returncode != 0 and "SECURE_SSL_REDIRECT" in plain.stdout + plain.stderr


def test_every_file_the_service_writes_is_its_owners_alone(tmp_path):
    # A loose umask, as a shell may have: the database, its WAL, the broker and the secret are still
    # unreadable to anyone else (an uploaded bot runs as another user), and var/ is closed.
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    (var / "left-by-an-older-version.sqlite3").write_text("x")
    (var / "left-by-an-older-version.sqlite3").chmod(0o644)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CI")
    }
    env.update(DJANGO_SETTINGS_MODULE="snakepit.settings", SNAKEPIT_VAR_DIR=str(var))
    subprocess.run(
        ["sh", "-c", f"umask 000 && {sys.executable} manage.py migrate --noinput -v 0"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    assert var.stat().st_mode & 0o777 == 0o700
    written = [path for path in var.rglob("*") if path.name != "left-by-an-older-version.sqlite3"]
    assert any(path.suffix == ".sqlite3" for path in written) and (var / "broker" / "queue").is_dir()
    loose = {
        str(path.relative_to(var)): oct(path.stat().st_mode & 0o777)
        for path in written
        if path.stat().st_mode & 0o077
    }
    assert loose == {}
