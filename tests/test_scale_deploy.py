"""The deploy files: the Kubernetes manifests validate against Kubernetes' own schemas (offline:
kubernetes-validate ships them), the probes point at the health endpoints that exist, and the Compose
file has what deploy/README.md says it has."""

from __future__ import annotations

import configparser
import copy
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from django.urls import resolve
from kubernetes_validate.utils import latest_version

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
KUBERNETES = DEPLOY / "kubernetes"


def manifests() -> list[tuple[str, dict]]:
    found = []
    for path in sorted(KUBERNETES.glob("*.yaml")):
        if path.name == "kustomization.yaml":  # kustomize's file, not a Kubernetes object
            continue
        found += [(path.name, document) for document in yaml.safe_load_all(path.read_text()) if document]
    return found


def by_kind_and_name(kind: str, name: str) -> dict:
    return next(doc for _, doc in manifests() if doc["kind"] == kind and doc["metadata"]["name"] == name)


def container(kind: str, name: str) -> dict:
    return by_kind_and_name(kind, name)["spec"]["template"]["spec"]["containers"][0]


@pytest.mark.parametrize(
    ("file", "document"), manifests(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_each_manifest_validates_strictly_against_the_kubernetes_schema(file, document):
    kubernetes_validate.validate(document, latest_version(), strict=True)


def test_the_validation_would_catch_a_mistake():
    broken = copy.deepcopy(by_kind_and_name("Deployment", "snakepit-web"))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/readyz"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, latest_version(), strict=True)


def test_the_kustomization_lists_every_manifest_and_the_secret_copy():
    listed = yaml.safe_load((KUBERNETES / "kustomization.yaml").read_text())["resources"]
    present = {path.name for path in KUBERNETES.glob("*.yaml")} - {
        "kustomization.yaml",
        "secret.example.yaml",
    }
    # The migration Job is applied on its own before each release; secret.yaml is the operator's copy.
    assert set(listed) == (present - {"migrate-job.yaml"}) | {"secret.yaml"}


def test_web_pods_are_probed_on_the_health_endpoints_that_exist():
    web = container("Deployment", "snakepit-web")
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        # The probes' Host must be allowed, or Django answers 400 to every one of them.
        assert {"name": "Host", "value": "localhost"} in web[probe]["httpGet"]["httpHeaders"]
    allowed = by_kind_and_name("ConfigMap", "snakepit-config")["data"]["DJANGO_ALLOWED_HOSTS"].split(",")
    assert "localhost" in [host.strip().split()[0] for host in allowed]
    assert resolve("/readyz").url_name == "readyz" and resolve("/healthz").url_name == "healthz"


def test_workers_and_beat_are_probed_and_beat_is_single():
    worker = container("Deployment", "snakepit-worker")
    assert worker["readinessProbe"]["exec"]["command"] == ["python", "-m", "snakepit.health"]
    assert "inspect ping" in " ".join(worker["livenessProbe"]["exec"]["command"])
    beat = by_kind_and_name("Deployment", "snakepit-beat")
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"


def test_only_the_migration_job_holds_the_owners_url():
    for file, document in manifests():
        text = yaml.safe_dump(document)
        if document["kind"] == "Job":
            assert "DATABASE_OWNER_URL" in text
        elif document["kind"] in ("Deployment", "ConfigMap"):
            assert "DATABASE_OWNER_URL" not in text, file
    secrets = by_kind_and_name("Secret", "snakepit-secrets")["stringData"]
    referenced = {
        ref["valueFrom"]["secretKeyRef"]["key"]
        for _, document in manifests()
        if document["kind"] in ("Deployment", "Job")
        for ref in document["spec"]["template"]["spec"]["containers"][0].get("env", [])
        if "valueFrom" in ref
    }
    assert referenced <= set(secrets)


def test_pgbouncer_pools_by_transaction_in_both_places():
    deployed = configparser.ConfigParser()
    deployed.read(DEPLOY / "pgbouncer" / "pgbouncer.ini")
    in_cluster = configparser.ConfigParser()
    in_cluster.read_string(by_kind_and_name("ConfigMap", "pgbouncer-config")["data"]["pgbouncer.ini"])
    for config in (deployed, in_cluster):
        assert config["pgbouncer"]["pool_mode"] == "transaction"
    # Alike but for the server's address (and the Kubernetes Secret's mount path).
    differing = {"auth_file", "client_idle_timeout"}
    assert {k: v for k, v in deployed["pgbouncer"].items() if k not in differing} == {
        k: v for k, v in in_cluster["pgbouncer"].items() if k not in differing
    }


def test_the_compose_file_runs_every_part_behind_a_tls_proxy():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "pgbouncer", "redis", "migrate", "web", "worker", "beat", "proxy"}
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert "DATABASE_OWNER_URL" in services["migrate"]["environment"]
    assert all(
        "DATABASE_OWNER_URL" not in services[name].get("environment", {})
        for name in ("web", "worker", "beat")
    )
    assert services["beat"]["deploy"]["replicas"] == 1
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])
    assert [name for name, service in services.items() if "ports" in service] == ["proxy"]
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    nginx = (DEPLOY / "nginx" / "snakepit.conf").read_text()
    assert "listen 443 ssl" in nginx and "return 301 https://" in nginx and "X-Forwarded-Proto" in nginx


def test_the_environment_example_names_the_roles_and_every_web_server_variable():
    import re

    example = (DEPLOY / "snakepit.env.example").read_text()
    settings_lines = dict(
        line.lstrip("# ").split("=", 1) for line in example.splitlines() if re.match(r"#? ?[A-Z_]+=", line)
    )
    assert settings_lines["DATABASE_URL"].startswith("postgres://snakepit_app:")
    assert settings_lines["DATABASE_OWNER_URL"].startswith("postgres://snakepit_owner:")
    procfile = (DEPLOY / "Procfile").read_text()
    web_variables = set(re.findall(r"\$\{(SNAKEPIT_WEB_\w+)", procfile))
    assert web_variables and web_variables <= set(settings_lines)
