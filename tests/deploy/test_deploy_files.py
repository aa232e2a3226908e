"""The deployment files (deploy/): the tools made for them accept them, they agree with the code
(`deploy/checks.py`, what `make deploy-check` runs), and every check refuses a broken copy.

Real tools: promtool and docker-compose (Debian, `deploy/ensure-deploy-tools.sh`),
kubernetes-validate and check-jsonschema (dev dependencies). A missing tool fails the test.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from deploy.checks import (
    CHECKS,
    DEPLOY,
    check_commands,
    check_env,
    check_metrics,
    check_pods,
    check_ports,
    check_sandbox,
    check_secrets,
    main,
    run_tool,
    tool_checks,
)

TOOLS = (
    "promtool check config prometheus.yml",
    "promtool check rules alerts.yml",
    "promtool check config k8s/prometheus.yml",
    "kubernetes-validate --strict k8s/*.yaml",
    "check-jsonschema compose-spec docker-compose.yml",
    "docker-compose config docker-compose.yml",
)


def _tool(deploy: Path, workdir: Path, name: str) -> tuple[bool, str]:
    checks = {c.name: c for c in tool_checks(deploy, workdir)}
    assert set(checks) == set(TOOLS)
    return run_tool(checks[name])


@pytest.fixture
def broken(tmp_path: Path) -> Callable[[str, str, str], Path]:
    """A copy of deploy/ (its files only, no credentials) and a way to break one of them:
    ``break_(file, old, new)`` replaces `old` (which must be there, once) with `new`."""
    copy = tmp_path / "deploy"
    skip = shutil.ignore_patterns("certs", "secrets", "multihost", "__pycache__")
    shutil.copytree(DEPLOY, copy, ignore=skip)

    def break_(name: str, old: str, new: str) -> Path:
        path = copy / name
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} is not once in {name}: update this test"
        path.write_text(text.replace(old, new), encoding="utf-8")
        return copy

    return break_


# --- the files as they are ------------------------------------------------------------------


@pytest.mark.parametrize("name", TOOLS)
def test_the_tools_accept_the_deployment_files(name: str, tmp_path: Path) -> None:
    ok, output = _tool(DEPLOY, tmp_path, name)
    assert ok, output


@pytest.mark.parametrize("check", CHECKS, ids=lambda f: f.__name__)
def test_the_deployment_files_agree_with_the_code(check: Callable[[Path], list[str]]) -> None:
    assert check(DEPLOY) == []


def test_every_arena_process_is_deployed_in_both() -> None:
    # the checks above look at what is there: this says what must be there
    from deploy.checks import arena_containers

    paths = {(c.where.split()[0].split("/")[0], c.path) for c in arena_containers(DEPLOY)}
    for where in ("docker-compose.yml", "k8s"):
        for path in (("db", "upgrade"), ("serve", "api"), ("serve", "referee"), ("worker",), ("beat",)):
            assert (where, path) in paths, f"{where} does not run `arena {' '.join(path)}`"


# --- broken copies: each check notices ------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "file", "old", "new"),
    [
        ("promtool check rules alerts.yml", "alerts.yml",
         "expr: sum(arena_queue_depth) > 0", "expr: sum(arena_queue_depth) >> 0"),
        ("promtool check config prometheus.yml", "prometheus.yml",
         "  scrape_interval: 15s", "  scrape_interval: fifteen"),
        ("promtool check config k8s/prometheus.yml", "k8s/prometheus.yml",
         "regex: https\n        action: drop", "regex: https\n        action: dropp"),
        ("kubernetes-validate --strict k8s/*.yaml", "k8s/30-api.yaml",
         "          readinessProbe:", "          readinesProbe:"),
        ("kubernetes-validate --strict k8s/*.yaml", "k8s/20-referee.yaml",
         "  replicas: 1", "  replicas: one"),
        ("check-jsonschema compose-spec docker-compose.yml", "docker-compose.yml",
         "{condition: service_completed_successfully}", "{condition: service_finished}"),
        ("docker-compose config docker-compose.yml", "docker-compose.yml",
         # schema-valid (check-jsonschema passes it), but api would wait for a service that isn't
         "    migrate: {condition: service_completed_successfully}",
         "    migrat: {condition: service_completed_successfully}"),
    ],
    ids=["rules", "prometheus", "k8s-prometheus", "k8s-field", "k8s-type", "compose-schema",
         "compose-secret"],
)
def test_a_tool_refuses_a_broken_file(
    broken: Callable[[str, str, str], Path], tmp_path: Path, tool: str, file: str, old: str, new: str
) -> None:
    deploy = broken(file, old, new)
    ok, output = _tool(deploy, tmp_path / "work", tool)
    assert not ok, output
    assert output


@pytest.mark.parametrize(
    ("check", "file", "old", "new", "says"),
    [
        (check_commands, "k8s/40-worker.yaml", '"--concurrency", "2"', '"--concurency", "2"',
         "lists no --concurency"),
        (check_commands, "docker-compose.yml", 'command: ["beat",', 'command: ["beats",',
         "`arena beats --help` exits"),
        (check_commands, "k8s/20-referee.yaml", '"--port", "50051"', '"--port", "grpc"',
         "arena refuses"),
        (check_env, "k8s/01-config.yaml", "  ARENA_QUEUE_DEPTH:", "  ARENA_QUEUE_DEPHT:",
         "sets ARENA_QUEUE_DEPHT, which nothing reads"),
        (check_env, "k8s/20-referee.yaml", '"$(POD_CIDR)"', '"$(POD_CIRD)"',
         "$(POD_CIRD) in its arguments is not in its environment"),
        (check_ports, "k8s/30-api.yaml", "containerPort: 8000", "containerPort: 8080",
         "port https=8080 is not one the process listens on"),
        (check_ports, "prometheus.yml", '["beat:9810"]', '["beat:9811"]',
         "does not scrape beat:9810"),
        (check_ports, "docker-compose.yml", '"serve", "api", "--host", "0.0.0.0", "--port", "8000"',
         '"serve", "api", "--host", "0.0.0.0", "--port", "8443"', "the code's default is 8000"),
        (check_ports, "k8s/50-beat.yaml", 'prometheus.io/port: "9810"', 'prometheus.io/port: "9100"',
         "metrics on :9810, but its pod's prometheus.io annotations"),
        (check_metrics, "alerts.yml", "sum(increase(arena_matches_requeued_total[15m]))",
         "sum(increase(arena_matches_requeued[15m]))", "arena_matches_requeued is not exported"),
        (check_metrics, "alerts.yml", "max by (ladder) (arena_queue_depth)",
         "max by (lader) (arena_queue_depth)", "groups by 'lader'"),
        (check_metrics, "alerts.yml", '{status=~"5.."}', '{code=~"5.."}', "has no label 'code'"),
        (check_metrics, "grafana/dashboards/arena.json",
         "histogram_quantile(0.99, sum by (le, game) (rate(arena_decision_seconds_bucket",
         "histogram_quantile(0.99, sum by (le, game) (rate(arena_decision_second_bucket",
         "arena_decision_second_bucket is not exported"),
        (check_secrets, "k8s/01-config.yaml", "postgresql+psycopg://arena@postgres",
         "postgresql+psycopg://arena:hunter2@postgres", "a URL with a password"),
        (check_secrets, "k8s/50-beat.yaml",
         "- name: PGPASSWORD\n              valueFrom: {secretKeyRef: {name: arena-db, key: password}}",
         "- name: PGPASSWORD\n              value: hunter2", "PGPASSWORD has a literal value"),
        (check_secrets, "k8s/40-worker.yaml", "{secretKeyRef: {name: arena-broker, key: url}}",
         "{secretKeyRef: {name: arena-redis, key: url}}",
         "uses Secret arena-redis, which k8s/README.md does not say how to create"),
        (check_pods, "k8s/50-beat.yaml", "          livenessProbe:\n", "          startupProbe:\n",
         "container beat: no livenessProbe"),
        (check_pods, "k8s/30-api.yaml", "            limits: {cpu: \"1\", memory: 768Mi}\n", "",
         "no limits.cpu"),
        (check_sandbox, "docker-compose.yml", "    privileged: true\n", "",
         "the sandbox needs a privileged container"),
        (check_sandbox, "k8s/30-api.yaml", "        runAsNonRoot: true\n        runAsUser: 10001",
         "        runAsUser: 0", "privileged or root, which only the workers need"),
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_a_check_refuses_a_broken_file(
    broken: Callable[[str, str, str], Path],
    check: Callable[[Path], list[str]],
    file: str,
    old: str,
    new: str,
    says: str,
) -> None:
    deploy = broken(file, old, new)
    problems = check(deploy)
    assert any(says in p for p in problems), problems


def test_make_deploy_check_fails_on_a_broken_copy(
    broken: Callable[[str, str, str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    deploy = broken("k8s/40-worker.yaml", "            privileged: true\n", "")
    assert main(["--deploy", str(deploy)]) == 1
    out = capsys.readouterr().out
    assert "FAIL check sandbox" in out and "deploy-check: 1 failed" in out
    assert "ok   kubernetes-validate --strict k8s/*.yaml" in out  # still schema-valid: only the check knows
