"""`python manage.py screenshots DIR`: PNGs of the main pages, so people can look at them.

Without `--url` it starts its own server (waitress, on a free port of 127.0.0.1) over a throwaway
SQLite database filled with the demo data, and stops it afterwards; with `--url` it photographs a
running Snakepit instead. The browser is Debian's chromium driven by Playwright (`executable_path`):
nothing is downloaded."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SERVER_START_SECONDS = 120  # migrations and the demo data come first


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Command(BaseCommand):
    help = "Write PNG screenshots of the main pages to DIR (own throwaway demo server, or --url)."

    def add_arguments(self, parser):
        parser.add_argument("directory", help="Where the PNGs go (made if missing).")
        parser.add_argument(
            "--url", default="", help="Photograph this running Snakepit instead of a throwaway one."
        )
        parser.add_argument("--width", type=int, default=1280)
        parser.add_argument("--height", type=int, default=900)
        # Internal: the throwaway server's process (its own database and settings from its environment).
        parser.add_argument(
            "--serve-demo", type=int, default=0, help="(internal) migrate, load the demo, serve"
        )

    def handle(self, *args, directory: str, url: str, width: int, height: int, serve_demo: int, **options):
        if serve_demo:
            return self._serve_demo(serve_demo)
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            raise CommandError(
                "Debian's chromium is needed (apt-get install chromium); nothing is downloaded"
            )
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        if url:
            self._photograph(url.rstrip("/"), out, chromium, width, height, extra={})
            return
        with self._throwaway_server() as (base, extra):
            self._photograph(base, out, chromium, width, height, extra=extra)

    # --- the throwaway server -----------------------------------------------------------------------
    @contextmanager
    def _throwaway_server(self) -> Iterator[tuple[str, dict]]:
        port = free_port()
        with tempfile.TemporaryDirectory(prefix="snakepit-screenshots-") as folder:
            env = {
                **os.environ,
                "SNAKEPIT_VAR_DIR": folder,
                "DATABASE_URL": f"sqlite:///{Path(folder) / 'demo.sqlite3'}",
                "REDIS_URL": "",  # no Redis: the local-memory cache and a broker folder in `folder`
                "CI": "",
                "SNAKEPIT_SHOW_DEMO_LOGIN": "1",
            }
            env.pop("CELERY_BROKER_URL", None)
            manage = Path(settings.BASE_DIR) / "manage.py"
            runner = (
                [str(manage)] if manage.exists() else ["-m", "django"]
            )  # an installed package has no manage.py
            env.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
            command = [sys.executable, *runner, "screenshots", folder, "--serve-demo", str(port)]
            self.stdout.write(f"starting a throwaway server with demo data on 127.0.0.1:{port} ...")
            log = open(Path(folder) / "server.log", "w+")  # noqa: SIM115 - closed below, after the server stops
            server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
            try:
                extra = json.loads(server.stdout.readline() or "{}")
                base = f"http://127.0.0.1:{port}"
                self._wait_for(base, server, log)
                yield base, extra
            finally:
                server.terminate()
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                log.close()

    def _wait_for(self, base: str, server: subprocess.Popen, log) -> None:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if server.poll() is not None:
                log.seek(0)
                raise CommandError(f"the throwaway server stopped:\n{log.read()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise CommandError(f"the throwaway server did not answer within {SERVER_START_SECONDS} s")

    def _serve_demo(self, port: int) -> None:
        """In the child process: its own database, the demo in it, then serve until terminated."""
        import waitress

        from decks.models import Deck
        from snakepit.demo import demo_data_ensure
        from snakepit.wsgi import application

        call_command("migrate", verbosity=0, interactive=False)
        demo_data_ensure()
        decks = list(Deck.objects.order_by("pk").values_list("share_id", flat=True)[:2])
        sys.stdout.write(json.dumps({"decks": decks}) + "\n")
        sys.stdout.flush()
        waitress.serve(application, listen=f"127.0.0.1:{port}", threads=4, ident="snakepit")

    # --- the photographs ----------------------------------------------------------------------------
    def _photograph(
        self, base: str, out: Path, chromium: str, width: int, height: int, *, extra: dict
    ) -> None:
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        from playwright.sync_api import sync_playwright

        written = []
        failed: list[str] = []  # pages that answered with an error: photographed, then reported
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": width, "height": height})

            def shoot(name: str, path: str, action=None) -> None:
                response = page.goto(f"{base}{path}" if path.startswith("/") else path)
                if response is not None and response.status >= 400:
                    failed.append(f"{page.url}: HTTP {response.status}")
                if action:
                    action()
                target = out / f"{len(written) + 1:02d}-{name}.png"
                page.screenshot(path=str(target), full_page=True)
                written.append(target)
                self.stdout.write(f"  [{len(written):2d}] {target.name}  <- {page.url}")

            def first_links(selector: str, count: int) -> list[str]:
                return [link.get_attribute("href") for link in page.locator(selector).all()[:count]]

            shoot("home", "/")
            shoot("tournaments", "/tournaments/")
            tournaments = first_links("#tournaments tbody a", 3)
            for k, href in enumerate(tournaments, start=1):
                shoot(f"tournament-{k}", href)
                if page.locator("#bracket").count():
                    shoot(f"tournament-{k}-embed", href.rstrip("/") + "/embed/")
                page.goto(f"{base}/tournaments/")
            shoot("ladders", "/ladders/")
            ladders = first_links("#ladders tbody a", 1)
            if ladders:
                shoot("ladder", ladders[0])
                charts = first_links("#leaderboard tbody a", 1)
                if charts:
                    shoot("ladder-rating-chart", charts[0])
            shoot("matches", "/matches/")
            rows = page.locator("#matches tbody tr")
            finished = rows.filter(has_text="finished").locator("td:first-child a").all()[:1]
            running = rows.filter(has=page.locator(".badge.live")).locator("td:first-child a").all()[:1]
            finished_href = finished[0].get_attribute("href") if finished else None
            running_href = running[0].get_attribute("href") if running else None
            if finished_href:
                shoot("match-replay-start", finished_href + "?step=1")
                shoot(
                    "match-replay-end",
                    finished_href,
                    lambda: (page.click("#verify-button"), page.wait_for_selector("#verify-verdict")),
                )
            if running_href:
                shoot("match-live", running_href)
            shoot("deck-checker", "/decks/")
            prebuilt = first_links("#prebuilt a", 1)
            if prebuilt:
                shoot(
                    "deck-checker-result",
                    "/decks/" + prebuilt[0],
                    lambda: (page.click("#check-button"), page.wait_for_selector("#deck-result")),
                )
            for k, share_id in enumerate(extra.get("decks", []), start=1):
                shoot(f"deck-{k}", f"/decks/{share_id}/")
            browser.close()
        if failed:
            raise CommandError(
                f"{len(written)} screenshots in {out}, but these pages failed:\n" + "\n".join(failed)
            )
        self.stdout.write(self.style.SUCCESS(f"{len(written)} screenshots in {out}"))
