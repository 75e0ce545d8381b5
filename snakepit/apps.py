from django.apps import AppConfig


class SnakepitConfig(AppConfig):
    name = "snakepit"
    verbose_name = "Snakepit"

    def ready(self) -> None:
        # The secret key's deploy check (snakepit/checks.py) registers itself on import. The operations
        # page's records listen in every process (web, worker, management commands): the read-model
        # checks' answers and Celery's failed tasks (snakepit/pages/ops_records.py).
        from snakepit import checks  # noqa: F401
        from snakepit.pages import ops_records  # noqa: F401
