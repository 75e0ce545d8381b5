"""Run the whole service on this machine: migrations, demo data, web servers, Celery workers and beat.

The web server is uvicorn (snakepit/processes.py: `web_command`, behind snakepit/serving.py): one
event loop holds every connection and reads each request's body before at most SNAKEPIT_WEB_THREADS
requests at once reach Django, so slow or idle clients cannot starve the others (nor event streams),
and that bound is the bound on database connections. It listens on 127.0.0.1 unless told otherwise;
put a TLS proxy in front to serve other machines (deploy/README.md). With `--web N` (N > 1) the N
web processes listen on ports of their own and a balancer in this process shares the one port
between them (`snakepit.processes.Balancer`).

`up` supervises what it starts: a process that dies is started again (so a killed worker's task is
redelivered to a fresh one), and Ctrl-C or SIGTERM stops them all. Which process has which pid is
written to var/up.json for operators and the load test (tests/load/)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from ratings.services import ladders_ensure_for_games
from snakepit.demo import (
    DEMO_PASSWORD,
    DEMO_USERNAME,
    STAFF_USERNAME,
    demo_data_ensure,
    is_loopback,
    staff_account_ensure,
)
from snakepit.processes import (
    Balancer,
    celery_command,
    free_port,
    web_command,
    web_environment,
    web_ready,
)

# A process that dies this many times within RESTART_WINDOW seconds is not started again: something
# is wrong that restarting will not mend, and `up` stops everything with the log's name.
RESTART_LIMIT = 5
RESTART_WINDOW = 60.0
STOP_GRACE_SECONDS = 20


def embedded_default_refusal(*, web: int, workers: int) -> str | None:
    """Why this many processes cannot share the configured database and broker, or None."""
    if web <= 1 and workers <= 1:
        return None
    missing = []
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        missing.append("PostgreSQL (DATABASE_URL=postgres://user:password@host:5432/snakepit)")
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        missing.append("Redis (REDIS_URL=redis://host:6379/0)")
    if not missing:
        return None
    return (
        f"--web {web} --workers {workers} needs a database and a broker that many processes can share; "
        f"the embedded default (SQLite, a filesystem broker) runs one web process and one worker. "
        f"Configure {' and '.join(missing)}: see deploy/README.md."
    )


@dataclass
class Supervised:
    name: str
    command: list[str]
    env: dict[str, str]
    log: str
    process: subprocess.Popen | None = None
    deaths: list[float] = field(default_factory=list)

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.command,
                cwd=settings.BASE_DIR,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches `up` alone, which stops each in turn
            )


class Command(BaseCommand):
    help = (
        "Migrate, create demo data, then run web servers behind one port, Celery workers and beat until "
        "Ctrl-C, starting again any that dies."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--host", default="127.0.0.1", help="Address to listen on (default: this machine only)."
        )
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="Skip the demo account and matches.")
        parser.add_argument(
            "--web",
            type=int,
            default=1,
            metavar="N",
            help="Web processes behind the one port (more than 1 needs PostgreSQL and Redis).",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            metavar="M",
            help="Celery worker processes (more than 1 needs PostgreSQL and Redis).",
        )
        parser.add_argument(
            "--concurrency",
            type=int,
            default=2,
            help="Tasks each worker runs at once (its child processes).",
        )

    def handle(
        self, *args, host: str, port: int, no_demo: bool, web: int, workers: int, concurrency: int, **options
    ):
        if web < 1 or workers < 1 or concurrency < 1:
            raise CommandError("--web, --workers and --concurrency are at least 1.")
        if web > 64 or workers > 64 or concurrency > 64:
            raise CommandError("--web, --workers and --concurrency are at most 64 on one machine.")
        refusal = embedded_default_refusal(web=web, workers=workers)
        if refusal:
            raise CommandError(refusal)
        call_command("migrate", interactive=False, verbosity=0)
        ladders = ladders_ensure_for_games()
        self.stdout.write(f"Database migrated; {len(ladders)} open bot ladder(s) scheduled.")

        log_dir = settings.VAR_DIR / "log"
        log_dir.mkdir(parents=True, exist_ok=True)
        application_name = os.environ.get("SNAKEPIT_DB_APPLICATION_NAME", "snakepit")

        def supervised(name: str, kind: str, command: list[str]) -> Supervised:
            env = {
                **os.environ,
                # `up` trusts no proxy's forwarded headers (an operator's SNAKEPIT_WEB_* are kept).
                **(web_environment() if kind == "web" else {}),
                # The pages name the demo login only to this machine (snakepit.demo.demo_login_hint).
                "SNAKEPIT_SHOW_DEMO_LOGIN": "1" if not no_demo and is_loopback(host) else "0",
                # Whose connections they are, in PostgreSQL's pg_stat_activity.
                "SNAKEPIT_DB_APPLICATION_NAME": f"{application_name}-{kind}",
            }
            return Supervised(name, command, env, str(log_dir / f"{name}.log"))

        web_ports = [port] if web == 1 else [free_port() for _ in range(web)]
        web_host = host if web == 1 else "127.0.0.1"
        children = [
            supervised(
                "web" if web == 1 else f"web-{number}",
                "web",
                web_command(web_host, web_ports[number - 1]),
            )
            for number in range(1, web + 1)
        ]
        children += [
            supervised(
                "worker" if workers == 1 else f"worker-{number}",
                "worker",
                celery_command(
                    "worker",
                    "--loglevel=WARNING",
                    f"--concurrency={concurrency}",
                    f"--hostname=worker{number}@%h",
                ),
            )
            for number in range(1, workers + 1)
        ]
        children.append(supervised("beat", "beat", celery_command("beat", "--loglevel=WARNING")))

        balancer = None
        stopping = []

        def stop_requested(signum, frame):
            stopping.append(signum)

        previous_handlers = {
            signum: signal.signal(signum, stop_requested) for signum in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            for child in children:
                child.start()
            self._status_write(host, port, children)
            for child, web_port in zip(children[:web], web_ports):
                try:
                    web_ready(web_host, web_port, child.process)
                except RuntimeError as error:
                    raise CommandError(f"{error}; see {child.log}") from None
            if web > 1:
                balancer = Balancer(host, port, [(web_host, web_port) for web_port in web_ports])
                try:
                    balancer.start()
                except RuntimeError as error:
                    raise CommandError(str(error)) from None
            if stopping:  # Ctrl-C while starting
                return
            self._welcome(host, port, no_demo, web, workers, concurrency, log_dir)
            self._supervise(host, port, children, stopping)
        finally:
            if balancer is not None:
                balancer.stop()
            self._stop_all(children)
            (settings.VAR_DIR / "up.json").unlink(missing_ok=True)
            for signum, handler in previous_handlers.items():
                signal.signal(signum, handler)

    def _welcome(self, host, port, no_demo, web, workers, concurrency, log_dir) -> None:
        lines = [self._staff_line()]
        if not no_demo:
            _, token = demo_data_ensure(progress=self.stdout.write)
            lines += [
                f"  Demo player: {DEMO_USERNAME} / {DEMO_PASSWORD}   API token: {token}",
                f"  Play Rat-Snake against a bot: see README.md, or open http://{host}:{port}/api/matches/",
            ]
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        broker = settings.CELERY_BROKER_URL.split("://", 1)[0]
        self.stdout.write(
            self.style.SUCCESS(f"\nSnakepit is running at http://{host}:{port}/")
            + f"  (database: {database}, broker: {broker}; {web} web process(es), {workers} worker(s)"
            + f" x {concurrency}, 1 beat)\n"
            + "\n".join(lines)
            + f"\n  Ladders: http://{host}:{port}/api/ladders/ (bots play a round every minute)"
            + f"\n  API docs: http://{host}:{port}/api/docs/   Logs: {log_dir}/   Stop with Ctrl-C.\n"
        )

    @staticmethod
    def _staff_line() -> str:
        """The staff account (admin, operations page), with its password the one time it is made: this
        terminal is the only place it is ever written (a child's log under var/log never sees it)."""
        _, password = staff_account_ensure()
        if password is None:
            return (
                f"  Staff: {STAFF_USERNAME} (password shown when it was made; set a new one with "
                f"`manage.py changepassword {STAFF_USERNAME}`)"
            )
        return f"  Staff: {STAFF_USERNAME} / {password}   (shown this once: note it down)"

    def _supervise(self, host: str, port: int, children: list[Supervised], stopping: list) -> None:
        """Start again any child that dies, until a stop is asked for or one dies too often."""
        while not stopping:
            for child in children:
                if child.process.poll() is None:
                    continue
                now = time.monotonic()
                child.deaths = [death for death in child.deaths if now - death < RESTART_WINDOW] + [now]
                if len(child.deaths) >= RESTART_LIMIT:
                    raise CommandError(
                        f"{child.name} stopped {RESTART_LIMIT} times within {RESTART_WINDOW:.0f} s "
                        f"(last exit code {child.process.returncode}); see {child.log}"
                    )
                self.stderr.write(
                    f"{child.name} stopped with exit code {child.process.returncode}; starting it again."
                )
                child.start()
                self._status_write(host, port, children)
            time.sleep(0.5)

    @staticmethod
    def _status_write(host: str, port: int, children: list[Supervised]) -> None:
        status = {
            "pid": os.getpid(),
            "host": host,
            "port": port,
            "processes": {child.name: child.process.pid for child in children if child.process is not None},
        }
        path = settings.VAR_DIR / "up.json"
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(status, indent=1))
        partial.replace(path)

    @staticmethod
    def _stop_all(children: list[Supervised]) -> None:
        """SIGTERM to each child's process group (a worker's pool included), then wait; SIGKILL after
        STOP_GRACE_SECONDS for any still there."""
        running = [
            child.process for child in children if child.process is not None and child.process.poll() is None
        ]
        for process in running:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
