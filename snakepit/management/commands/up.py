"""Run the whole service on this machine: migrations, demo data, web server, Celery worker and beat.

The web server is waitress (snakepit/processes.py: `web_command`): it buffers each request before a
fixed pool of threads answers it, so slow clients cannot starve the others, and that pool bounds the
database connections. It listens on 127.0.0.1 unless told otherwise; put a TLS proxy in front to serve
other machines (deploy/README.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from ratings.services import ladders_ensure_for_games
from snakepit.demo import DEMO_PASSWORD, DEMO_USERNAME, demo_data_ensure
from snakepit.processes import celery_command, web_command, web_ready


class Command(BaseCommand):
    help = "Migrate, create demo data, then run the web server, a Celery worker and beat until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="Address to listen on (default: this machine only).")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="Skip the demo account and matches.")

    def _wait_for_web(self, host: str, port: int, web: subprocess.Popen) -> None:
        try:
            web_ready(host, port, web)
        except RuntimeError as error:
            raise CommandError(f"{error}; see var/log/web.log") from None

    def handle(self, *args, host: str, port: int, no_demo: bool, **options):
        call_command("migrate", interactive=False, verbosity=0)
        ladders = ladders_ensure_for_games()
        self.stdout.write(f"Database migrated; {len(ladders)} open bot ladder(s) scheduled.")
        processes = {
            "worker": celery_command("worker", "--loglevel=WARNING", "--concurrency=2"),
            "beat": celery_command("beat", "--loglevel=WARNING"),
            "web": web_command(host, port),
        }
        log_dir = settings.VAR_DIR / "log"
        log_dir.mkdir(parents=True, exist_ok=True)
        running = {}
        application_name = os.environ.get("SNAKEPIT_DB_APPLICATION_NAME", "snakepit")
        for name, command in processes.items():
            with open(log_dir / f"{name}.log", "ab") as log:
                env = {
                    **os.environ,
                    "SNAKEPIT_SHOW_DEMO_LOGIN": "0" if no_demo else "1",
                    # Whose connections they are, in PostgreSQL's pg_stat_activity.
                    "SNAKEPIT_DB_APPLICATION_NAME": f"{application_name}-{name}",
                }
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
