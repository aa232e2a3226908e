"""The deployment files (deploy/): the tools made for them accept them, they agree with the code
(`deploy/checks.py`, what `make deploy-check` runs), and every check refuses a broken copy.

Real tools: promtool and docker-compose (Debian, `deploy/ensure-deploy-tools.sh`),
kubernetes-validate and check-jsonschema (dev dependencies). A missing tool fails the test.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from deploy.checks import (
    CHECKS,
    DEPLOY,
    REPO,
    Container,
    arena_containers,
    check_commands,
    check_connlimit,
    check_env,
    check_image,
    check_metrics,
    check_pods,
    check_ports,
    check_processes,
    check_sandbox,
    check_secrets,
    main,
    quantity,
    referee_layout,
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


def test_the_referee_runs_a_process_per_core_in_both() -> None:
    # --processes N > 1 in compose and Kubernetes (k8s: N is the CPU request), so the checks of
    # the own ports, ARENA_REFEREE_ADDR and the per-process scrape targets are exercised
    layouts = {c.where.split()[0]: referee_layout(c) for c in arena_containers(DEPLOY)
               if c.path == ("serve", "referee")}
    assert set(layouts) == {"docker-compose.yml", "k8s/20-referee.yaml"}
    for where, layout in layouts.items():
        assert layout is not None and layout.processes > 1, where
        assert layout.own == tuple(range(50052, 50052 + layout.processes)), where


def test_every_arena_process_is_deployed_in_both() -> None:
    # the checks above look at what is there: this says what must be there
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
        # --processes N: ARENA_REFEREE_ADDR lists every process's own port, and only those
        (check_processes, "docker-compose.yml", "ARENA_REFEREE_ADDR: referee:50052,referee:50053",
         "ARENA_REFEREE_ADDR: referee:50052", "does not reach the referee process(es) on [50053]"),
        (check_processes, "k8s/01-config.yaml", "ARENA_REFEREE_ADDR: referee:50052,referee:50053",
         "ARENA_REFEREE_ADDR: referee:50051", "the port every process shares"),
        (check_processes, "k8s/20-referee.yaml", 'requests: {cpu: "2", memory: 512Mi}',
         'requests: {cpu: "3", memory: 512Mi}', "does not reach the referee process(es) on [50054]"),
        (check_processes, "k8s/20-referee.yaml",
         "    - {name: referee-1, port: 50053, targetPort: referee-1}\n", "",
         "referee:50053 reaches no port of the referee"),
        (check_processes, "k8s/01-config.yaml", "ARENA_REFEREE_ADDR: referee:50052,referee:50053",
         "ARENA_REFEREE_ADDR: referee-public:50052,referee-public:50053",
         "reaches no port of the referee"),
        (check_processes, "k8s/20-referee.yaml", '"--processes", "$(REFEREE_PROCESSES)"',
         '"--processes", "4"', "--processes 4 on a CPU request of 2.0 cores"),
        # ... and Prometheus scrapes each process's metrics port
        (check_ports, "prometheus.yml", '["referee:9809", "referee:9810"]', '["referee:9809"]',
         "does not scrape referee:9810"),
        (check_ports, "k8s/20-referee.yaml", "{name: metrics-1, containerPort: 9810}",
         "{name: metrics-1, containerPort: 9811}", "process 1 serves metrics on :9810"),
        (check_ports, "k8s/prometheus.yml", "regex: 'metrics-(\\d+)'\n        action: keep",
         "regex: 'metric-(\\d+)'\n        action: keep", "keeps the container port metrics-0"),
        # pod discovery and relabelling, simulated: the referee's processes once each, no more
        (check_ports, "k8s/prometheus.yml",
         "      - source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_port]\n"
         "        regex: '\\d+'\n        action: keep\n", "",
         "job arena-pods scrapes its port 50051, which serves no metrics"),
        (check_ports, "k8s/prometheus.yml", "regex: 'metrics-(\\d+)'\n        action: keep",
         "regex: '.*'\n        action: keep", "job arena-pod-ports scrapes its port 50053, which serves no"),
        (check_ports, "k8s/20-referee.yaml", "{name: metrics-1, containerPort: 9810}",
         "{name: metrics1, containerPort: 9810}", "metrics on :9810 (http), but k8s/prometheus.yml's jobs "
         "scrape it 0 time(s)"),
        (check_ports, "k8s/20-referee.yaml", '        prometheus.io/scrape: "true"\n',
         '        prometheus.io/scrape: "true"\n        prometheus.io/port: "9809"\n',
         "and no prometheus.io/port"),
        (check_metrics, "alerts.yml", "sum(increase(arena_matches_requeued_total[15m]))",
         "sum(increase(arena_matches_requeued[15m]))", "arena_matches_requeued is not exported"),
        (check_metrics, "alerts.yml", "max by (ladder) (arena_queue_depth)",
         "max by (lader) (arena_queue_depth)", "groups by 'lader'"),
        (check_metrics, "alerts.yml", '{status=~"5.."}', '{code=~"5.."}', "has no label 'code'"),
        (check_metrics, "grafana/dashboards/arena.json",
         "histogram_quantile(0.99, sum by (le, game) (rate(arena_decision_seconds_bucket",
         "histogram_quantile(0.99, sum by (le, game) (rate(arena_decision_second_bucket",
         "arena_decision_second_bucket is not exported"),
        # the referee's panels and its restart alert (arena_referee_*, referee/server/metrics.py)
        (check_metrics, "alerts.yml", "(arena_referee_process_restarts offset 1h",
         "(arena_referee_process_restart offset 1h", "arena_referee_process_restart is not exported"),
        (check_metrics, "alerts.yml", "Referee process {{ $labels.process }}",
         "Referee process {{ $labels.slot }}", "its summary uses $labels.slot"),
        (check_metrics, "grafana/dashboards/arena.json", "process) (arena_referee_process_restarts)",
         "process) (arena_referee_restarts)", "arena_referee_restarts is not exported"),
        (check_metrics, "grafana/dashboards/arena.json", "rate(arena_referee_decision_seconds_count[5m])",
         "rate(arena_referee_decisions_total[5m])", "arena_referee_decisions_total is not exported"),
        (check_metrics, "grafana/dashboards/arena.json", "(rate(arena_referee_strikes_total[5m]))",
         "(rate(arena_referee_strike_total[5m]))", "arena_referee_strike_total is not exported"),
        (check_metrics, "grafana/dashboards/arena.json", "sum by (instance) (arena_referee_active_matches)",
         "sum by (instance) (arena_referee_active_matches{state=\\\"running\\\"})",
         "arena_referee_active_matches has no label 'state'"),
        (check_metrics, "grafana/dashboards/arena.json", '"process {{process}} ({{instance}})"',
         '"process {{slot}} ({{instance}})"', "its legend uses {{slot}}"),
        (check_metrics, "grafana/dashboards/arena.json", '"p99 {{game}}"', '"p99 {{reason}}"',
         "its legend uses {{reason}}"),
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
        # the referee's per-address connection cap is loaded by both deployments
        (check_connlimit, "docker-compose.yml", '    entrypoint: ["/app/deploy/referee-entrypoint.sh"]\n', "",
         "not started by /app/deploy/referee-entrypoint.sh"),
        (check_sandbox, "docker-compose.yml", '    entrypoint: ["/app/deploy/referee-entrypoint.sh"]\n', "",
         "service referee: privileged or root"),
        (check_connlimit, "k8s/20-referee.yaml", '"/app/deploy/referee-connlimit.nft"]',
         '"/app/deploy/other.nft"]', "no init container runs nft -f /app/deploy/referee-connlimit.nft"),
        (check_connlimit, "k8s/20-referee.yaml", "add: [NET_ADMIN]", "add: []", "no init container runs"),
        (check_connlimit, "Dockerfile", " nftables \\\n", " \\\n", "does not install nftables"),
        (check_connlimit, "Dockerfile", "deploy/referee-connlimit.nft deploy/referee-entrypoint.sh",
         "deploy/referee-entrypoint.sh", "does not COPY deploy/referee-connlimit.nft"),
        # the image has every package of `arena` (cli/ moved out of workers/ and the image lacked it)
        (check_image, "Dockerfile", "COPY cli cli\n", "", "does not COPY cli/ (package cli"),
        (check_image, "Dockerfile", "COPY ladder ladder\n", "", "does not COPY ladder/"),
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


# --- the referee's layout is the code's ----------------------------------------------------


def test_quantity_reads_kubernetes_cpu_and_memory() -> None:
    assert quantity("500m") == 0.5 and quantity('2') == 2 and quantity(2) == 2
    assert quantity("512Mi") == 512 * 2**20 and quantity("two") is None


def _free_block(n: int) -> int:
    """A port P with P .. P+n-1 free on 127.0.0.1 now."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base: int = probe.getsockname()[1]
        if base + n > 65535:
            continue
        try:
            with contextlib.ExitStack() as stack:
                for port in range(base, base + n):
                    s = stack.enter_context(socket.socket())
                    s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
    raise AssertionError("no block of free ports")


def _read_until(proc: subprocess.Popen[str], prefix: str, timeout: float) -> tuple[str, list[str]]:
    """The first line of `proc`'s stdout that starts with `prefix`, and every line up to it.

    The lines are read by a thread: select() on the pipe beside readline() strands lines, since one
    readline() buffers every line the pipe held and select() then waits for more (the supervisor's
    `referee listening on` line, arriving with a child's log line, sat unread for the whole
    timeout)."""
    assert proc.stdout is not None
    stdout = proc.stdout
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        with contextlib.suppress(ValueError, OSError):  # the caller closed the pipe
            for line in stdout:
                lines.put(line)
        lines.put("")

    threading.Thread(target=pump, name="read-until", daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if not line:
            break
        seen.append(line)
        if line.startswith(prefix):
            return line, seen
    raise AssertionError(f"no {prefix!r} line: {''.join(seen)[-2000:]}")


def test_read_until_finds_a_line_that_arrived_with_the_one_before() -> None:
    # both lines reach the pipe in one write, then the writer stays silent: a reader that waits on
    # the pipe (select) after reading the first line never sees the second, which it buffered
    script = (
        "import sys, time; sys.stdout.write('first\\nreferee listening on x\\n'); sys.stdout.flush(); "
        "time.sleep(600)"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        line, seen = _read_until(proc, "referee listening on ", 30)
        assert line == "referee listening on x\n"
        assert seen == ["first\n", line]
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def test_referee_layout_is_where_a_real_processes_group_listens() -> None:
    # deploy/checks.py computes the own ports (PORT+1+i) and metrics ports (METRICS+i) the
    # deployment files must agree with; this starts the real `--processes 2` and compares
    # one block for the referee ports and the metrics ports: two blocks picked one after the other
    # may overlap (the second probe may land in the first block, free again once probed)
    port = _free_block(5)
    metrics = port + 3
    argv = ["serve", "referee", "--port", str(port), "--processes", "2", "--metrics-port", str(metrics),
            "--insecure"]
    layout = referee_layout(Container(where="test", argv=argv))
    assert layout is not None
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=REPO, start_new_session=True)
    try:
        line, _ = _read_until(proc, "referee listening on ", 90)
        # the first line is ARENA_REFEREE_ADDR's form: the own ports, in order
        assert line.split("referee listening on ", 1)[1].strip() == ",".join(
            f"127.0.0.1:{p}" for p in layout.own)
        for number in layout.metrics:  # every process serves its metrics where Prometheus looks
            with urllib.request.urlopen(f"http://127.0.0.1:{number}/metrics", timeout=5) as resp:
                assert b"arena_referee_" in resp.read()
        with socket.create_connection(("127.0.0.1", layout.shared), timeout=5):
            pass  # the shared port, where remote bots connect
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    assert proc.returncode == 0
