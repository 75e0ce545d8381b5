"""Run the whole service on this machine: migrations, demo data, web server, Celery worker and beat."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from ratings.services import ladders_ensure_for_games
from snakepit.demo import DEMO_PASSWORD, DEMO_USERNAME, demo_data_ensure
from snakepit.processes import celery_command


class Command(BaseCommand):
    help = "Migrate, create demo data, then run the web server, a Celery worker and beat until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="Skip the demo account and matches.")

    def _wait_for_web(self, host: str, port: int, web: subprocess.Popen) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and web.poll() is None:
            try:
                with socket.create_connection((host, port), timeout=1):
                    return
            except OSError:
                time.sleep(0.3)
        raise CommandError(f"the web server did not start on {host}:{port}; see var/log/web.log")

    def handle(self, *args, host: str, port: int, no_demo: bool, **options):
        call_command("migrate", interactive=False, verbosity=0)
        ladders = ladders_ensure_for_games()
        self.stdout.write(f"Database migrated; {len(ladders)} open bot ladder(s) scheduled.")
        processes = {
            "worker": celery_command("worker", "--loglevel=WARNING", "--concurrency=2"),
            "beat": celery_command("beat", "--loglevel=WARNING"),
            "web": [sys.executable, "manage.py", "runserver", "--noreload", f"{host}:{port}"],
        }
        log_dir = settings.VAR_DIR / "log"
        log_dir.mkdir(parents=True, exist_ok=True)
        running = {}
        for name, command in processes.items():
            with open(log_dir / f"{name}.log", "ab") as log:
                env = {**os.environ, "SNAKEPIT_SHOW_DEMO_LOGIN": "0" if no_demo else "1"}
                running[name] = subprocess.Popen(
                    command, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
                )
        self._wait_for_web(host, port, running["web"])
        lines = []
        if not no_demo:
            _, token = demo_data_ensure()
            lines = [
                f"  Demo organiser: {DEMO_USERNAME} / {DEMO_PASSWORD}   API token: {token}",
                f"  Play Rat-Snake against a bot: see README.md, or open http://{host}:{port}/api/matches/",
            ]
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        broker = settings.CELERY_BROKER_URL.split("://", 1)[0]
        self.stdout.write(
            self.style.SUCCESS(f"\nSnakepit is running at http://{host}:{port}/")
            + f"  (database: {database}, broker: {broker})\n"
            + "\n".join(lines)
            + f"\n  Ladders: http://{host}:{port}/api/ladders/ (bots play a round every minute)"
            + f"\n  API docs: http://{host}:{port}/api/docs/   Logs: {log_dir}/   Stop with Ctrl-C.\n"
        )
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
        try:
            while True:
                for name, process in running.items():
                    if process.poll() is not None:
                        self.stderr.write(f"{name} stopped with exit code {process.returncode}; shutting down.")
                        raise KeyboardInterrupt
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        finally:
            for process in running.values():
                if process.poll() is None:
                    process.terminate()
            for process in running.values():
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
