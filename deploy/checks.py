"""`make deploy-check`: the deployment files, checked by the tools made for them and against the code.

``python -m deploy.checks [--deploy DIR]`` prints one line per check and exits 1 if any failed.
``tests/deploy/test_deploy_files.py`` runs the same checks, and runs them on broken copies to
show that each one notices.

The tools (:func:`tool_checks`; ``deploy/ensure-deploy-tools.sh`` installs the Debian ones):

* ``promtool check config`` / ``check rules`` (Debian's ``prometheus``): ``prometheus.yml``,
  ``alerts.yml``, and ``k8s/prometheus.yml`` with its ``kubernetes_sd_configs`` blocks swapped
  for a static target, because Debian builds Prometheus without Kubernetes discovery (the
  relabelling, TLS and rule files are still checked; the discovery blocks are checked here
  for their keys only);
* ``kubernetes-validate --strict`` (PyPI; the Kubernetes OpenAPI schemas it ships, unknown
  fields refused): every ``k8s/*.yaml``;
* ``check-jsonschema --builtin-schema vendor.compose-spec`` (PyPI; the Compose Specification's
  schema) and ``docker-compose config -q`` (Debian's Compose, client side, no daemon):
  ``docker-compose.yml``.

What no tool knows, checked against the code (each ``check_*`` returns its problems, one line
each): every command is a real ``arena`` subcommand that accepts its arguments
(:func:`check_commands`), every variable set is read by the code (:func:`check_env`), ports
agree with each other and with the code's defaults and every metrics port is scraped
(:func:`check_ports`), `serve referee --processes N` agrees with ``ARENA_REFEREE_ADDR`` (every
process's own port, as :func:`referee_layout` computes them) and with its CPU request
(:func:`check_processes`), the alert rules and the dashboard use metrics and labels the code exports
and a panel's legend only labels its series keep (:func:`check_metrics`), no secret is written in a
manifest (:func:`check_secrets`), every long-running container has probes and resources
(:func:`check_pods`), the workers get what the sandbox needs (:func:`check_sandbox`), and the
image copies every package pyproject installs (:func:`check_image`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fnmatch
import functools
import importlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # (PyYAML ships no types; deploy/ is not type-checked)

__all__ = [
    "CHECKS",
    "ToolCheck",
    "check_commands",
    "check_env",
    "check_image",
    "check_metrics",
    "check_pods",
    "check_ports",
    "check_processes",
    "check_sandbox",
    "check_secrets",
    "k8s_scrapes",
    "main",
    "quantity",
    "referee_layout",
    "run_tool",
    "tool_checks",
]

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
#: where Arena reads its environment: a variable set for an Arena process must be named here
CODE_DIRS = ("referee", "workers", "ladder", "bots")
#: variables set for an Arena process that the code never names, and who reads them
EXTERNAL_ENV = {"PGPASSWORD": "libpq (psycopg) takes the database password from it"}
#: `arena` commands that export metrics -> the option that gives the port they are on
EXPORTERS: dict[tuple[str, ...], str] = {
    ("serve", "api"): "--port",  # /metrics on the API's own port
    ("serve", "referee"): "--metrics-port",
    ("worker",): "--metrics-port",
    ("beat",): "--metrics-port",
}
#: commands that serve clients on --port, whose default the deployment must keep
SERVERS = (("serve", "api"), ("serve", "referee"))
#: the modules that define Arena's metrics
METRIC_MODULES = ("ladder.metrics", "workers.metrics", "referee.server.metrics")
#: labels Prometheus adds to every sample it scrapes
TARGET_LABELS = frozenset({"job", "instance"})
_SAMPLE_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "summary": ("_sum", "_count", "_created"),
    "gauge": ("",),
}
_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")
_SECRET_NAME = re.compile(r"PASSWORD|PASSWD|TOKEN|SECRET|_KEY$|CREDENTIAL", re.IGNORECASE)
_VAR_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


# --- the files ----------------------------------------------------------------------------


@dataclass
class Container:
    """One Arena process as a deployment file starts it."""

    where: str  # "docker-compose.yml service api", "k8s/30-api.yaml Deployment api"
    argv: list[str]  # the arguments of `arena`
    env: dict[str, str | None] = field(default_factory=dict)  # None: from a Secret
    ports: dict[str, int] = field(default_factory=dict)  # name -> container port
    annotations: dict[str, str] = field(default_factory=dict)
    spec: dict[str, Any] = field(default_factory=dict)  # the k8s container / compose service
    pod: dict[str, Any] = field(default_factory=dict)  # the k8s pod spec

    @property
    def path(self) -> tuple[str, ...]:
        """The subcommand: the arguments before the first option (``serve api``)."""
        out: list[str] = []
        for arg in self.argv:
            if arg.startswith("-"):
                break
            out.append(arg)
        return tuple(out)

    def option(self, name: str) -> str | None:
        """The value given to option `name` (``--port 8000`` or ``--port=8000``), if any."""
        for i, arg in enumerate(self.argv):
            if arg == name and i + 1 < len(self.argv):
                return self.argv[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
        return None

    def expanded_argv(self) -> list[str]:
        """The arguments with Kubernetes' ``$(VAR)`` references replaced by their values."""
        return [_VAR_REF.sub(lambda m: self.env.get(m.group(1)) or "secret", a) for a in self.argv]


def _load_all(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def _compose(deploy: Path) -> dict[str, Any]:
    with (deploy / "docker-compose.yml").open(encoding="utf-8") as f:
        data: dict[str, Any] = yaml.safe_load(f)  # YAML merge keys (<<) resolved here
    return data


def k8s_manifests(deploy: Path) -> list[Path]:
    """The Kubernetes manifests (``k8s/*.yaml``; ``k8s/prometheus.yml`` is Prometheus')."""
    return sorted((deploy / "k8s").glob("*.yaml"))


def _k8s_docs(deploy: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in k8s_manifests(deploy):
        for doc in _load_all(path):
            yield path, doc


def _config_maps(deploy: Path) -> dict[str, dict[str, str]]:
    return {
        doc["metadata"]["name"]: dict(doc.get("data") or {})
        for _, doc in _k8s_docs(deploy)
        if doc.get("kind") == "ConfigMap"
    }


def _pod_spec(doc: dict[str, Any]) -> dict[str, Any] | None:
    kind = doc.get("kind")
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "Job"):
        spec: dict[str, Any] = doc["spec"]["template"]["spec"]
        return spec
    if kind == "CronJob":
        spec = doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        return spec
    if kind == "Pod":
        spec = doc["spec"]
        return spec
    return None


_QUANTITY = re.compile(r"^([0-9.]+)(m|k|Ki|M|Mi|G|Gi|T|Ti)?$")
_UNITS = {None: 1.0, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
          "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}


def quantity(value: object) -> float | None:
    """A Kubernetes quantity (``500m``, ``"2"``, ``1Gi``) as a number; None if it is not one."""
    m = _QUANTITY.match(str(value).strip())
    return float(m.group(1)) * _UNITS[m.group(2)] if m else None


def _resource_field(pod: dict[str, Any], container: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """The value Kubernetes gives an env variable from ``resourceFieldRef``: the container's
    request or limit divided by the divisor, rounded up (None if it can't be told)."""
    name = ref.get("containerName") or container.get("name")
    target = next((c for c in pod.get("containers", []) if c.get("name") == name), None)
    part, _, what = str(ref.get("resource", "")).partition(".")
    value = quantity(((target or {}).get("resources") or {}).get(part, {}).get(what))
    divisor = quantity(ref.get("divisor", "1"))
    if value is None or not divisor:
        return None
    return str(math.ceil(value / divisor - 1e-9))


def _is_arena_image(image: str) -> bool:
    return image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0] == "arena"


def arena_containers(deploy: Path) -> list[Container]:
    """Every Arena process of the compose file (the services built from the Dockerfile) and of
    the Kubernetes manifests (the containers of the ``arena`` image)."""
    out: list[Container] = []
    for name, svc in (_compose(deploy).get("services") or {}).items():
        if "build" not in svc and not _is_arena_image(str(svc.get("image", ""))):
            continue
        raw = svc.get("environment") or {}
        if isinstance(raw, list):
            raw = dict(e.split("=", 1) if "=" in e else (e, None) for e in raw)
        ports: dict[str, int] = {}
        for p in svc.get("ports") or []:
            container_port = str(p).rsplit(":", 1)[-1].split("/", 1)[0]
            ports[container_port] = int(container_port)
        out.append(Container(
            where=f"docker-compose.yml service {name}",
            argv=[str(a) for a in svc.get("command") or []],
            env={k: None if v is None else str(v) for k, v in raw.items()},
            ports=ports,
            spec=svc,
        ))
    maps = _config_maps(deploy)
    for path, doc in _k8s_docs(deploy):
        pod = _pod_spec(doc)
        if pod is None:
            continue
        template_meta = (doc.get("spec", {}).get("template", {}) or {}).get("metadata") or {}
        for c in pod.get("containers", []):
            if not _is_arena_image(str(c.get("image", ""))):
                continue
            env: dict[str, str | None] = {}
            for ref in c.get("envFrom") or []:
                if "configMapRef" in ref:  # (a Secret's keys are not known here)
                    env.update(maps.get(ref["configMapRef"]["name"], {}))
            for e in c.get("env") or []:
                if "value" in e:
                    env[e["name"]] = str(e["value"])
                else:
                    cm = (e.get("valueFrom") or {}).get("configMapKeyRef")
                    field_ref = (e.get("valueFrom") or {}).get("resourceFieldRef")
                    if field_ref:
                        env[e["name"]] = _resource_field(pod, c, field_ref)
                    else:
                        env[e["name"]] = maps.get(cm["name"], {}).get(cm["key"]) if cm else None
            out.append(Container(
                where=f"k8s/{path.name} {doc['kind']} {doc['metadata']['name']} container {c['name']}",
                argv=[str(a) for a in (c.get("command") or [])[1:]] + [str(a) for a in c.get("args") or []],
                env=env,
                ports={p.get("name", str(p["containerPort"])): int(p["containerPort"])
                       for p in c.get("ports") or []},
                annotations=dict(template_meta.get("annotations") or {}),
                spec=c,
                pod=pod,
            ))
    return out


# --- the tools ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCheck:
    """One run of a validator: a name for the report and the command line."""

    name: str
    argv: tuple[str, ...]


def _venv_tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else (shutil.which(name) or name)


def _k8s_prometheus_for_promtool(deploy: Path, workdir: Path) -> Path:
    """``k8s/prometheus.yml`` beside a copy of ``alerts.yml``, each ``kubernetes_sd_configs``
    block checked for its keys and swapped for a static target (Debian's promtool has no
    Kubernetes discovery and would refuse the field)."""
    with (deploy / "k8s" / "prometheus.yml").open(encoding="utf-8") as f:
        config = yaml.safe_load(f)
    for job in config.get("scrape_configs") or []:
        for sd in job.pop("kubernetes_sd_configs", []) or []:
            unknown = set(sd) - {"role", "namespaces", "selectors", "api_server", "kubeconfig_file",
                                 "attach_metadata", "tls_config", "authorization", "follow_redirects"}
            if unknown or sd.get("role") not in ("pod", "service", "endpoints", "endpointslice",
                                                 "node", "ingress"):
                raise ValueError(f"k8s/prometheus.yml job {job.get('job_name')}: kubernetes_sd_configs "
                                 f"{sd} (unknown keys {sorted(unknown)} or role)")
            job.setdefault("static_configs", []).append({"targets": ["pod.invalid:1"]})
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(deploy / "alerts.yml", workdir / "alerts.yml")
    out = workdir / "prometheus.yml"
    out.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return out


def tool_checks(deploy: Path, workdir: Path) -> list[ToolCheck]:
    """The validator runs for the files in `deploy` (scratch files go to `workdir`)."""
    promtool = shutil.which("promtool") or "promtool"
    compose = str(deploy / "docker-compose.yml")
    checks = [
        ToolCheck("promtool check config prometheus.yml",
                  (promtool, "check", "config", str(deploy / "prometheus.yml"))),
        ToolCheck("promtool check rules alerts.yml",
                  (promtool, "check", "rules", str(deploy / "alerts.yml"))),
    ]
    try:
        k8s_prom = _k8s_prometheus_for_promtool(deploy, workdir / "k8s-prometheus")
        checks.append(ToolCheck("promtool check config k8s/prometheus.yml",
                                (promtool, "check", "config", str(k8s_prom))))
    except (OSError, ValueError, yaml.YAMLError) as exc:
        checks.append(ToolCheck("promtool check config k8s/prometheus.yml",
                                ("sh", "-c", f"echo {json.dumps(str(exc))} >&2; exit 1")))
    checks += [
        ToolCheck("kubernetes-validate --strict k8s/*.yaml",
                  (_venv_tool("kubernetes-validate"), "--strict", "--quiet",
                   *[str(p) for p in k8s_manifests(deploy)])),
        ToolCheck("check-jsonschema compose-spec docker-compose.yml",
                  (_venv_tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", compose)),
        ToolCheck("docker-compose config docker-compose.yml",
                  (shutil.which("docker-compose") or "docker-compose", "-f", compose, "config", "-q")),
    ]
    return checks


def run_tool(check: ToolCheck, timeout: float = 120) -> tuple[bool, str]:
    """Run one validator: (passed, its output)."""
    try:
        proc = subprocess.run(check.argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "COMPOSE_PROJECT_NAME": "arena-check"})
    except FileNotFoundError:
        return False, f"{check.argv[0]} is not installed (run deploy/ensure-deploy-tools.sh, make install)"
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()


# --- against the code ---------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from referee.cli import build_parser

    return build_parser()


@functools.cache  # the same for every deploy folder: once per process
def _help_text(path: tuple[str, ...]) -> tuple[int, str]:
    arena = Path(sys.executable).parent / "arena"
    cmd = [str(arena)] if arena.exists() else [sys.executable, "-m", "referee.cli"]
    proc = subprocess.run([*cmd, *path, "--help"], capture_output=True, text=True, timeout=120, cwd=REPO)
    return proc.returncode, proc.stdout + proc.stderr


def check_commands(deploy: Path = DEPLOY) -> list[str]:
    """Every command is `arena <subcommand>` (its --help runs) with options it lists and
    arguments its parser accepts."""
    problems: list[str] = []
    helps: dict[tuple[str, ...], tuple[int, str]] = {}
    for c in arena_containers(deploy):
        if not c.argv:
            problems.append(f"{c.where}: no command (the image's default is `arena --help`)")
            continue
        if c.path not in helps:
            helps[c.path] = _help_text(c.path)
        code, text = helps[c.path]
        if code != 0:
            problems.append(f"{c.where}: `arena {' '.join(c.path)} --help` exits {code}: {text[-300:]}")
            continue
        for arg in c.argv:
            flag = arg.split("=", 1)[0]
            if flag.startswith("--") and not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text):
                problems.append(f"{c.where}: `arena {' '.join(c.path)} --help` lists no {flag}")
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                _parser().parse_args(c.expanded_argv())
        except SystemExit:
            problems.append(f"{c.where}: arena refuses {c.argv}: {err.getvalue().strip().splitlines()[-1:]}")
    return problems


def _names_in_code() -> str:
    chunks = []
    for d in CODE_DIRS:
        for p in (REPO / d).rglob("*.py"):
            if "_pb2" not in p.name:
                chunks.append(p.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(chunks)


def _sandbox_fields() -> set[str]:
    limits = importlib.import_module("workers.sandbox.limits")
    prefix: str = limits.ENV_PREFIX
    return {prefix + f.name.upper() for f in dataclasses.fields(limits.SandboxLimits)}


@dataclass(frozen=True)
class RefereeLayout:
    """Where `arena serve referee [--processes N]` listens (referee/server/PROCESSES.md)."""

    processes: int
    #: --port: the one referee's port, or with N > 1 the port every process shares (remote bots)
    shared: int
    #: each process's own port, where matches are created (ARENA_REFEREE_ADDR lists these):
    #: PORT with one process, PORT+1+i with N
    own: tuple[int, ...]
    #: each process's metrics port, METRICS+i (none without --metrics-port)
    metrics: tuple[int, ...]


def referee_layout(c: Container) -> RefereeLayout | None:
    """The ports of a `serve referee` container as the code lays them out, from the arguments
    its parser accepts (None for other commands, or arguments it refuses: check_commands says
    so). ``tests/deploy`` starts a real `--processes` referee to show this is the code's rule."""
    if c.path != ("serve", "referee"):
        return None
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            args = _parser().parse_args(c.expanded_argv())
    except SystemExit:
        return None
    n, port, metrics = int(args.processes), int(args.port), int(args.metrics_port or 0)
    own = (port,) if n == 1 else tuple(port + 1 + i for i in range(n))
    return RefereeLayout(n, port, own, tuple(metrics + i for i in range(n)) if metrics else ())


def _addresses(value: str) -> list[tuple[str, int | None]]:
    out: list[tuple[str, int | None]] = []
    for addr in filter(None, (a.strip() for a in value.split(","))):
        host, _, port = addr.rpartition(":")
        out.append((host, int(port) if port.isdigit() else None))
    return out


def _service_targets(deploy: Path, host: str, pod_labels: dict[str, str],
                     container: Container) -> dict[int, int] | None:
    """Service `host` (a name in the cluster): its port -> the referee container port it reaches;
    None if no Service of that name selects the referee's pod."""
    for _, doc in _k8s_docs(deploy):
        if doc.get("kind") != "Service" or doc["metadata"]["name"] != host.split(".", 1)[0]:
            continue
        selector = doc["spec"].get("selector") or {}
        if not selector or not selector.items() <= pod_labels.items():
            continue
        out: dict[int, int] = {}
        for port in doc["spec"].get("ports") or []:
            target = port.get("targetPort", port["port"])
            number = container.ports.get(target) if isinstance(target, str) else int(target)
            if number is not None:
                out[int(port["port"])] = number
        return out
    return None


def check_processes(deploy: Path = DEPLOY) -> list[str]:
    """`serve referee --processes N` and what depends on it agree: ARENA_REFEREE_ADDR lists
    every process's own port and nothing else (workers place a match on the process holding its
    remote bots; a process left out holds bots no match is ever placed with, the shared port
    reaches a random process), through the compose service or a Kubernetes Service that reaches
    those ports; the pod requests a core per process."""
    problems: list[str] = []
    containers = arena_containers(deploy)
    for referee in containers:
        layout = referee_layout(referee)
        if layout is None:
            continue
        in_compose = referee.where.startswith("docker-compose")
        if in_compose:
            service = referee.where.rsplit(" ", 1)[-1]
            reach: dict[str, dict[int, int] | None] = {service: {p: p for p in (layout.shared, *layout.own)}}
        else:
            cpu = quantity(((referee.spec.get("resources") or {}).get("requests") or {}).get("cpu"))
            if cpu is None or cpu < layout.processes:
                problems.append(f"{referee.where}: --processes {layout.processes} on a CPU request of "
                                f"{cpu} cores: each process uses a core (deploy/SCALING.md)")
            labels = next((d["spec"]["template"]["metadata"].get("labels") or {}
                           for _, d in _k8s_docs(deploy)
                           if _pod_spec(d) == referee.pod), {})
            reach = {}
        # every Arena process of the same file that is told where the referee is
        seen: dict[str, list[str]] = {}
        for c in containers:
            value = c.env.get("ARENA_REFEREE_ADDR")
            if value is not None and c.where.startswith("docker-compose") == in_compose:
                seen.setdefault(value, []).append(c.where.split(" ", 1)[1])
        for value, users in seen.items():
            where = f"{referee.where.split(' ', 1)[0]} {', '.join(users)}: ARENA_REFEREE_ADDR {value}"
            reached: list[int] = []
            for host, port in _addresses(value):
                if host not in reach and not in_compose:
                    reach[host] = _service_targets(deploy, host, labels, referee)
                targets = reach.get(host)
                if targets is None:
                    what = "service" if in_compose else "Service selecting its pod"
                    problems.append(f"{where}: {host} is not the referee's {what}")
                    continue
                number = targets.get(port) if port is not None else None
                if number is None:
                    problems.append(f"{where}: {host}:{port} reaches no port of the referee")
                elif number == layout.shared and layout.processes > 1:
                    problems.append(f"{where}: {host}:{port} is the port every process shares, which "
                                    "reaches one of them at random: list the own ports "
                                    f"{list(layout.own)} (referee/server/PROCESSES.md)")
                else:
                    reached.append(number)
            missing = sorted(set(layout.own) - set(reached))
            if missing and reached:
                problems.append(f"{where}: does not reach the referee process(es) on {missing} "
                                f"(--processes {layout.processes}): remote bots held there would never "
                                "be placed in a match")
    return problems


def check_env(deploy: Path = DEPLOY) -> list[str]:
    """Every variable an Arena process is given is read: an ``ARENA_*`` name declared in
    ``referee.settings`` or a sandbox limit (``ARENA_SANDBOX_<FIELD>``), any other named in the
    code as a string, read by a library (EXTERNAL_ENV) or used by a ``$(VAR)`` reference in the
    manifests; every ``$(VAR)`` is defined."""
    code = _names_in_code()
    sandbox = _sandbox_fields()
    # Arena's own variables are declared, with their readers, in one place
    declared: set[str] = set(importlib.import_module("referee.settings").VARIABLES)
    containers = arena_containers(deploy)
    referenced = {m for c in containers for a in c.argv for m in _VAR_REF.findall(a)}
    problems: list[str] = []
    for c in containers:
        for name in c.env:
            if name.startswith("ARENA_"):
                read = name in declared or name in sandbox
            else:  # DATABASE_URL, BROKER_URL, ...: named as a string where they are read
                read = f'"{name}"' in code or f"'{name}'" in code
            if not (read or name in EXTERNAL_ENV or name in referenced):
                problems.append(f"{c.where}: sets {name}, which nothing reads")
        for arg in c.argv:
            for ref in _VAR_REF.findall(arg):
                if ref not in c.env:
                    problems.append(f"{c.where}: $({ref}) in its arguments is not in its environment "
                                    "(Kubernetes would pass it on literally)")
    return problems


def _scrape_targets(deploy: Path) -> set[tuple[str, int]]:
    with (deploy / "prometheus.yml").open(encoding="utf-8") as f:
        config = yaml.safe_load(f)
    out: set[tuple[str, int]] = set()
    for job in config.get("scrape_configs") or []:
        for sc in job.get("static_configs") or []:
            for t in sc.get("targets") or []:
                host, port = str(t).rsplit(":", 1)
                out.add((host, int(port)))
        for sd in job.get("dns_sd_configs") or []:
            out.update((n, int(sd["port"])) for n in sd.get("names") or [])
    return out


def _defaults() -> dict[tuple[str, ...], int]:
    parser = _parser()
    out: dict[tuple[str, ...], int] = {}
    for path in SERVERS:
        out[path] = int(parser.parse_args(list(path)).port)
    return out


def check_ports(deploy: Path = DEPLOY) -> list[str]:
    """Servers listen on the code's default ports; published ports, container ports, Service
    target ports, probes and scrape targets name ports the processes listen on; every process
    that exports metrics is scraped."""
    problems: list[str] = []
    defaults = _defaults()
    scraped = _scrape_targets(deploy)
    compose_exporters: set[tuple[str, int]] = set()
    port_name_jobs = _port_name_jobs(deploy)
    for c in arena_containers(deploy):
        listening: set[int] = set()
        for flag in ("--port", "--metrics-port"):
            value = c.option(flag)
            if value is not None:
                listening.add(int(value))
        layout = referee_layout(c)
        if layout is not None:  # --processes N: every process's own and metrics ports
            listening = {layout.shared, *layout.own, *layout.metrics}
        if c.path in SERVERS:
            given = c.option("--port")
            if given is None or int(given) != defaults[c.path]:
                problems.append(f"{c.where}: --port {given}, the code's default is {defaults[c.path]}")
        for name, number in c.ports.items():
            if number not in listening:
                problems.append(f"{c.where}: port {name}={number} is not one the process listens on "
                                f"{sorted(listening)}")
        metrics_flag = EXPORTERS.get(c.path)
        metrics_port = c.option(metrics_flag) if metrics_flag else None
        if metrics_flag and metrics_port is None:
            problems.append(f"{c.where}: exports metrics but gets no {metrics_flag}: nothing can scrape it")
        # one metrics port per process: `--processes N --metrics-port M` serves M .. M+N-1
        metrics_ports = [int(metrics_port)] if metrics_port is not None else []
        if layout is not None and layout.metrics:
            metrics_ports = list(layout.metrics)
        if c.where.startswith("docker-compose"):
            service = c.where.rsplit(" ", 1)[-1]
            for number in metrics_ports:
                compose_exporters.add((service, number))
                if (service, number) not in scraped:
                    problems.append(f"{c.where}: metrics on :{number}, but prometheus.yml does not "
                                    f"scrape {service}:{number}")
            continue
        # Kubernetes: where k8s/prometheus.yml's jobs scrape the pod, the annotations, the probes
        doc = next(d for _, d in _k8s_docs(deploy) if _pod_spec(d) == c.pod)
        scrapes = k8s_scrapes(deploy, doc)
        want_scheme = "https" if c.option("--tls-cert") is not None and c.path == ("serve", "api") else "http"
        for number in metrics_ports:
            jobs = [(job, scheme) for job, scheme, port in scrapes if port == number]
            if [scheme for _, scheme in jobs] != [want_scheme]:
                problems.append(f"{c.where}: metrics on :{number} ({want_scheme}), but k8s/prometheus.yml's "
                                f"jobs scrape it {len(jobs)} time(s) {jobs}")
        for job, _scheme, port in scrapes:
            if port not in metrics_ports:
                problems.append(f"{c.where}: k8s/prometheus.yml job {job} scrapes its port {port}, "
                                "which serves no metrics")
        if len(metrics_ports) > 1:
            problems += _check_port_named_metrics(c, metrics_ports, port_name_jobs)
        elif metrics_port is not None:
            ann = c.annotations
            if ann.get("prometheus.io/scrape") != "true" or ann.get("prometheus.io/port") != metrics_port:
                problems.append(f"{c.where}: metrics on :{metrics_port}, but its pod's prometheus.io "
                                f"annotations say {ann}")
            wants_https = c.option("--tls-cert") is not None and c.path == ("serve", "api")
            if (ann.get("prometheus.io/scheme") == "https") != wants_https:
                problems.append(f"{c.where}: prometheus.io/scheme {ann.get('prometheus.io/scheme')!r} "
                                f"but the metrics are served over {'HTTPS' if wants_https else 'HTTP'}")
        for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
            probe = c.spec.get(kind) or {}
            for how in ("httpGet", "tcpSocket", "grpc"):
                if how in probe:
                    port = probe[how]["port"]
                    probed = c.ports.get(port) if isinstance(port, str) else int(port)
                    if probed is None or probed not in listening:
                        problems.append(f"{c.where}: {kind} on port {port}, not one it listens on")
                    scheme = probe[how].get("scheme", "HTTP") if how == "httpGet" else None
                    if scheme and (scheme == "HTTPS") != (probed == _int(c.option("--port"))
                                                          and c.option("--tls-cert") is not None):
                        problems.append(f"{c.where}: {kind} speaks {scheme} to port {port}")
    for target in sorted(scraped - compose_exporters):
        problems.append(f"prometheus.yml scrapes {target[0]}:{target[1]}, which no compose service exports")
    problems += _check_services(deploy)
    return problems


def _check_port_named_metrics(c: Container, metrics_ports: list[int], jobs: list[str]) -> list[str]:
    """Several metrics ports in one pod (`serve referee --processes N`): an annotation can name
    one port, so each is a container port ``metrics-<i>``, scraped by a pod-discovery job that
    keeps targets by port name (one target per declared port, at that port)."""
    problems: list[str] = []
    ann = c.annotations
    if ann.get("prometheus.io/scrape") != "true" or "prometheus.io/port" in ann:
        problems.append(f"{c.where}: metrics on {metrics_ports}, one port per process: its pod needs "
                        f"prometheus.io/scrape \"true\" and no prometheus.io/port (one target), has {ann}")
    for i, number in enumerate(metrics_ports):
        name = f"metrics-{i}"
        if c.ports.get(name) != number:
            problems.append(f"{c.where}: process {i} serves metrics on :{number}, but its container "
                            f"port {name} is {c.ports.get(name)}: Prometheus would not find it")
        elif not any(re.fullmatch(regex, name) for regex in jobs):
            problems.append(f"{c.where}: no job of k8s/prometheus.yml keeps the container port {name} "
                            f"(jobs keeping pod targets by port name: {jobs})")
    return problems


def _port_name_jobs(deploy: Path) -> list[str]:
    """The regexes of k8s/prometheus.yml's pod-discovery jobs that keep targets by container
    port name and leave each target at its own port (a job rewriting ``__address__`` would
    make every port of a pod one target)."""
    path = deploy / "k8s" / "prometheus.yml"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        config = yaml.safe_load(f) or {}
    out: list[str] = []
    for job in config.get("scrape_configs") or []:
        if not any(sd.get("role") == "pod" for sd in job.get("kubernetes_sd_configs") or []):
            continue
        relabels = job.get("relabel_configs") or []
        if any(r.get("target_label") == "__address__" for r in relabels):
            continue
        out += [str(r.get("regex", "(.*)")) for r in relabels
                if r.get("action") == "keep"
                and r.get("source_labels") == ["__meta_kubernetes_pod_container_port_name"]]
    return out


#: the address pod discovery gives the pod in `_pod_sd_targets` (any will do: one pod at a time)
_POD_IP = "10.0.0.7"


def _sanitize(name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


def _pod_sd_targets(doc: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, str]]:
    """What Prometheus' ``role: pod`` discovery gives for one pod of `doc`: a target per declared
    container port at the pod's address and that port, and one without a port per container
    that declares none, each with the pod's ``__meta_kubernetes_pod_*`` labels."""
    meta = (doc.get("spec", {}).get("template", {}) or {}).get("metadata") or {}
    base = {"__meta_kubernetes_namespace": str(doc["metadata"].get("namespace", "")),
            "__meta_kubernetes_pod_name": f"{doc['metadata']['name']}-0"}
    for key, value in (meta.get("annotations") or {}).items():
        base[f"__meta_kubernetes_pod_annotation_{_sanitize(key)}"] = str(value)
        base[f"__meta_kubernetes_pod_annotationpresent_{_sanitize(key)}"] = "true"
    for key, value in (meta.get("labels") or {}).items():
        base[f"__meta_kubernetes_pod_label_{_sanitize(key)}"] = str(value)
        base[f"__meta_kubernetes_pod_labelpresent_{_sanitize(key)}"] = "true"
    out: list[dict[str, str]] = []
    for c in pod.get("containers", []):
        here = {**base, "__meta_kubernetes_pod_container_name": str(c.get("name", ""))}
        if not c.get("ports"):
            out.append({**here, "__address__": _POD_IP})
        for port in c.get("ports") or []:
            out.append({**here, "__address__": f"{_POD_IP}:{port['containerPort']}",
                        "__meta_kubernetes_pod_container_port_name": str(port.get("name", "")),
                        "__meta_kubernetes_pod_container_port_number": str(port["containerPort"])})
    return out


def _expand(replacement: str, m: re.Match[str]) -> str:
    """A relabelling replacement with ``$1`` / ``${1}`` / ``$name`` filled from `m`."""

    def group(ref: re.Match[str]) -> str:
        key = ref.group(1)
        return m.group(int(key) if key.isdigit() else key) or ""

    return re.sub(r"\$\{?(\w+)\}?", group, replacement)


def _relabel(labels: dict[str, str], configs: list[dict[str, Any]]) -> dict[str, str] | None:
    """Prometheus' relabelling (the keep, drop and replace actions; regexes anchored, ``$1``
    and ``${name}`` in replacements, an empty result removes the label): the target's labels,
    or None if it is dropped."""
    labels = dict(labels)
    for r in configs:
        action = r.get("action", "replace")
        value = str(r.get("separator", ";")).join(labels.get(s, "") for s in r.get("source_labels") or [])
        m = re.match(f"^(?:{r.get('regex', '(.*)')})$", value)
        if (action == "keep" and not m) or (action == "drop" and m):
            return None
        if action == "replace" and m:
            result = _expand(str(r.get("replacement", "$1")), m)
            if result:
                labels[r["target_label"]] = result
            else:
                labels.pop(r["target_label"], None)
        elif action not in ("keep", "drop", "replace"):
            raise ValueError(f"relabel action {action} is not simulated here")
    return labels


def k8s_scrapes(deploy: Path, doc: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    """The targets k8s/prometheus.yml's pod-discovery jobs make of `doc`'s pod, as (job,
    scheme, port), once each (Prometheus drops targets that relabel to the same labels)."""
    pod = _pod_spec(doc)
    path = deploy / "k8s" / "prometheus.yml"
    if pod is None or not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        config = yaml.safe_load(f) or {}
    out: list[tuple[str, str, int | None]] = []
    for job in config.get("scrape_configs") or []:
        if not any(sd.get("role") == "pod" for sd in job.get("kubernetes_sd_configs") or []):
            continue
        seen: set[tuple[tuple[str, str], ...]] = set()
        for target in _pod_sd_targets(doc, pod):
            labels = _relabel(target, job.get("relabel_configs") or [])
            if labels is None:
                continue
            kept = tuple(sorted((k, v) for k, v in labels.items() if not k.startswith("__meta_")))
            if kept in seen:
                continue
            seen.add(kept)
            _, _, port = labels["__address__"].rpartition(":")
            out.append((str(job.get("job_name")), str(job.get("scheme", "http")),
                        int(port) if port.isdigit() else None))
    return out


def _int(value: str | None) -> int | None:
    return None if value is None else int(value)


def _check_services(deploy: Path) -> list[str]:
    problems: list[str] = []
    pods = [(doc, _pod_spec(doc)) for _, doc in _k8s_docs(deploy)]
    for path, doc in _k8s_docs(deploy):
        if doc.get("kind") != "Service":
            continue
        selector = doc["spec"].get("selector") or {}
        matched = [
            (d, spec) for d, spec in pods
            if spec is not None
            and selector.items() <= ((d["spec"]["template"]["metadata"].get("labels") or {}).items())
        ]
        if not matched:
            problems.append(f"k8s/{path.name} Service {doc['metadata']['name']}: selects no pod")
        for port in doc["spec"].get("ports") or []:
            target = port.get("targetPort", port["port"])
            for d, spec in matched:
                names = {p.get("name") for c in spec["containers"] for p in c.get("ports") or []}
                numbers = {p["containerPort"] for c in spec["containers"] for p in c.get("ports") or []}
                if target not in names and target not in numbers:
                    problems.append(f"k8s/{path.name} Service {doc['metadata']['name']}: targetPort "
                                    f"{target} is not a port of {d['kind']} {d['metadata']['name']}")
    return problems


def exported_metrics() -> dict[str, tuple[str, frozenset[str]]]:
    """Every metric the code defines: family name -> (type, label names)."""
    from prometheus_client.metrics import MetricWrapperBase

    out: dict[str, tuple[str, frozenset[str]]] = {}
    for module_name in METRIC_MODULES:
        module = importlib.import_module(module_name)
        for obj in vars(module).values():
            if isinstance(obj, MetricWrapperBase):
                for family in obj.collect() or obj.describe():
                    out[family.name] = (family.type, frozenset(getattr(obj, "_labelnames", ())))
    return out


def _targets(deploy: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every query of every dashboard panel (rows' panels too): (where, the target)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for board in sorted((deploy / "grafana" / "dashboards").glob("*.json")):
        data = json.loads(board.read_text(encoding="utf-8"))
        panels = list(data.get("panels") or [])
        while panels:
            panel = panels.pop()
            panels += panel.get("panels") or []
            for t in panel.get("targets") or []:
                if t.get("expr"):
                    out.append((f"grafana/dashboards/{board.name} panel {panel.get('title')!r}", t))
    return out


def _exprs(deploy: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    with (deploy / "alerts.yml").open(encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    for group in rules.get("groups") or []:
        for rule in group.get("rules") or []:
            out.append((f"alerts.yml {rule.get('alert') or rule.get('record')}", str(rule["expr"])))
    out += [(where, str(t["expr"])) for where, t in _targets(deploy)]
    return out


Metrics = dict[str, tuple[str, frozenset[str]]]


def _resolve(sample: str, metrics: Metrics) -> tuple[str, frozenset[str]] | None:
    for family, (kind, labels) in metrics.items():
        for suffix in _SAMPLE_SUFFIXES.get(kind, ("",)):
            if sample == family + suffix:
                extra = {"le"} if suffix == "_bucket" else set()
                return family, labels | extra | TARGET_LABELS
    return None


def check_metrics(deploy: Path = DEPLOY) -> list[str]:
    """The alert rules and the dashboards name samples the code exports (a counter as
    ``_total``, a histogram's ``_bucket``/``_sum``/``_count``) and only labels those have."""
    metrics = exported_metrics()
    problems: list[str] = []
    for where, expr in _exprs(deploy):
        text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # label values are not names
        labels_here: set[str] = set(TARGET_LABELS)
        for m in re.finditer(r"\b(arena_[a-z0-9_]+)\b(\s*\{([^}]*)\})?", text):
            found = _resolve(m.group(1), metrics)
            if found is None:
                kind = metrics.get(m.group(1), ("",))[0]  # a family name used as a sample name
                hint = ""
                if kind:
                    hint = f" (a {kind}: its samples are {m.group(1)}{_SAMPLE_SUFFIXES[kind][0]}...)"
                problems.append(f"{where}: {m.group(1)} is not exported by "
                                f"{', '.join(METRIC_MODULES)}{hint}")
                continue
            labels_here |= found[1]
            for label in re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", m.group(3) or ""):
                if label not in found[1]:
                    problems.append(f"{where}: {m.group(1)} has no label {label!r}")
        for group in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", text):
            for label in filter(None, (x.strip() for x in group.split(","))):
                if label not in labels_here:
                    problems.append(f"{where}: groups by {label!r}, a label none of its metrics has")
        for m in re.finditer(r"\{\{\s*\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)", text):
            if m.group(1) not in labels_here:
                problems.append(f"{where}: $labels.{m.group(1)} is not a label of its result")
    with (deploy / "alerts.yml").open(encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    for group in rules.get("groups") or []:
        for rule in group.get("rules") or []:
            text = json.dumps(rule.get("annotations") or {})
            kept = _result_labels(str(rule["expr"]), metrics)
            for label in re.findall(r"\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)", text):
                if kept is not None and label not in kept:
                    problems.append(f"alerts.yml {rule.get('alert')}: its summary uses $labels.{label}, "
                                    f"which its expression's result does not keep ({sorted(kept)})")
    for where, target in _targets(deploy):  # a legend names labels its series keep
        expr = str(target["expr"])
        quantile = re.match(r"\s*histogram_quantile\s*\(\s*[0-9.]+\s*,(.*)\)\s*$", expr, re.DOTALL)
        kept = _result_labels(quantile.group(1) if quantile else expr, metrics)
        if kept is not None and quantile:
            kept -= {"le"}
        legend = str(target.get("legendFormat", ""))
        for label in re.findall(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}", legend):
            if kept is not None and label not in kept:
                problems.append(f"{where}: its legend uses {{{{{label}}}}}, which its expression's result "
                                f"does not keep ({sorted(kept)})")
    return problems


def _result_labels(expr: str, metrics: dict[str, tuple[str, frozenset[str]]]) -> set[str] | None:
    """The labels an expression's result keeps when its outermost aggregation says so
    (``max by (ladder) (...)``); None when it can't be told simply."""
    m = re.match(r"\s*(?:sum|max|min|avg|count)\s+by\s*\(([^)]*)\)", expr)
    if m:
        return {x.strip() for x in m.group(1).split(",") if x.strip()}
    m = re.match(r"\s*(up|arena_[a-z0-9_]+)\b", expr)
    if m and not re.search(r"\b(sum|max|min|avg|count|rate|increase)\b", expr):
        if m.group(1) == "up":
            return set(TARGET_LABELS)
        found = _resolve(m.group(1), metrics)
        return set(found[1]) if found else None
    return None


def check_secrets(deploy: Path = DEPLOY) -> list[str]:
    """No secret is written in the Kubernetes manifests: no Secret objects, no password in a
    URL, no secret-looking variable with a literal value; every Secret and ConfigMap they
    refer to but do not define is one ``k8s/README.md`` says how to create."""
    problems: list[str] = []
    readme = (deploy / "k8s" / "README.md")
    readme_text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    defined_maps = set(_config_maps(deploy))
    for path, doc in _k8s_docs(deploy):
        where = f"k8s/{path.name} {doc.get('kind')} {doc.get('metadata', {}).get('name')}"
        if doc.get("kind") == "Secret":
            problems.append(f"{where}: a Secret in a manifest (create it from a file, see k8s/README.md)")
        for text in _strings(doc):
            found = _URL_WITH_PASSWORD.search(text)
            if found:
                problems.append(f"{where}: a URL with a password: {found.group(0)}...")
        if doc.get("kind") == "ConfigMap":
            for key in doc.get("data") or {}:
                if _SECRET_NAME.search(key) and not key.endswith(("_FILE", "_ADDR", "_CA")):
                    problems.append(f"{where}: {key} looks like a secret; put it in a Secret")
        pod = _pod_spec(doc)
        if pod is None:
            continue
        refs: set[tuple[str, str]] = set()
        for c in [*pod.get("containers", []), *pod.get("initContainers", [])]:
            for e in c.get("env") or []:
                if "value" in e and _SECRET_NAME.search(e["name"]) and not e["name"].endswith("_FILE"):
                    problems.append(f"{where}: {e['name']} has a literal value; take it from a Secret")
                vf = e.get("valueFrom") or {}
                if "secretKeyRef" in vf:
                    refs.add(("Secret", vf["secretKeyRef"]["name"]))
                if "configMapKeyRef" in vf:
                    ref = vf["configMapKeyRef"]
                    refs.add(("ConfigMap", ref["name"]))
                    if ref["name"] in defined_maps and ref["key"] not in _config_maps(deploy)[ref["name"]]:
                        problems.append(f"{where}: {e['name']} from ConfigMap {ref['name']} key "
                                        f"{ref['key']}, which it does not have")
            for ref in c.get("envFrom") or []:
                if "secretRef" in ref:
                    refs.add(("Secret", ref["secretRef"]["name"]))
                if "configMapRef" in ref:
                    refs.add(("ConfigMap", ref["configMapRef"]["name"]))
        for v in pod.get("volumes") or []:
            if "secret" in v:
                refs.add(("Secret", v["secret"]["secretName"]))
            if "configMap" in v:
                refs.add(("ConfigMap", v["configMap"]["name"]))
        for kind, name in sorted(refs):
            if kind == "ConfigMap" and name in defined_maps:
                continue
            if f"`{name}`" not in readme_text:
                problems.append(f"{where}: uses {kind} {name}, which k8s/README.md does not say how "
                                "to create")
    return problems


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def check_pods(deploy: Path = DEPLOY) -> list[str]:
    """Every long-running Kubernetes container has readiness and liveness probes and CPU and
    memory requests and limits; every Job's container has resources too."""
    problems: list[str] = []
    for path, doc in _k8s_docs(deploy):
        pod = _pod_spec(doc)
        if pod is None:
            continue
        for c in pod.get("containers", []):
            where = f"k8s/{path.name} {doc['kind']} {doc['metadata']['name']} container {c['name']}"
            if doc["kind"] in ("Deployment", "StatefulSet", "DaemonSet"):
                for probe in ("readinessProbe", "livenessProbe"):
                    if probe not in c:
                        problems.append(f"{where}: no {probe}")
            res = c.get("resources") or {}
            for part in ("requests", "limits"):
                for what in ("cpu", "memory"):
                    if what not in (res.get(part) or {}):
                        problems.append(f"{where}: no {part}.{what}")
    return problems


#: packages pyproject ships that the image leaves out, and why
NOT_IN_IMAGE = {"bench": "the benchmarks: no process of the deployment runs one (bench/__init__.py)"}


def _shipped_folders() -> dict[str, str]:
    """The repository's top-level folders that hold a package pyproject installs (its
    ``packages.find``: ``where`` folders, ``include`` patterns) -> the package's name."""
    find = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "packages"
    ]["find"]
    out: dict[str, str] = {}
    for where in find.get("where", ["."]):
        for init in sorted((REPO / where).glob("*/__init__.py")):
            name = init.parent.name
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in find.get("include", ["*"])):
                top = name if where == "." else Path(where).parts[0]
                out.setdefault(top, name)
    return out


def _copied(deploy: Path) -> set[str]:
    """The repository paths the Dockerfile copies from its build context (the repository)."""
    out: set[str] = set()
    for line in (deploy / "Dockerfile").read_text(encoding="utf-8").splitlines():
        words = line.split()
        if not words or words[0].upper() not in ("COPY", "ADD"):
            continue
        sources = [w for w in words[1:-1] if not w.startswith("--")]
        if any(w.startswith("--from") for w in words[1:]):
            continue  # from another stage, not the repository
        out.update(s.rstrip("/").removeprefix("./") for s in sources)
    return out


def check_image(deploy: Path = DEPLOY) -> list[str]:
    """The image (deploy/Dockerfile) copies every package pyproject installs, so `arena` and
    the modules its commands load are there (a package moved to a new folder, and the image
    would fail at `arena --help` or at the first command that imports it)."""
    copied = _copied(deploy)
    return [
        f"Dockerfile: does not COPY {folder}/ (package {name}, which pyproject installs)"
        for folder, name in sorted(_shipped_folders().items())
        if folder not in copied and folder not in NOT_IN_IMAGE
    ]


#: the referee's cap on TCP connections per client address, as the image holds it, and the
#: compose entrypoint that loads it and then runs the referee unprivileged
CONNLIMIT_RULES = "/app/deploy/referee-connlimit.nft"
CONNLIMIT_ENTRYPOINT = "/app/deploy/referee-entrypoint.sh"


def _starts_unprivileged(c: Container) -> bool:
    """A compose service started by the referee's entrypoint: root (with NET_ADMIN) only to load
    the connection cap, then `arena` as uid 10001 with no capability."""
    return c.spec.get("entrypoint") == [CONNLIMIT_ENTRYPOINT] and not c.spec.get("privileged")


def check_connlimit(deploy: Path = DEPLOY) -> list[str]:
    """Every referee loads the per-address connection cap before it takes a connection:
    compose through the entrypoint (root with NET_ADMIN, then the arena user), Kubernetes through
    an init container running `nft -f` on the rule file with NET_ADMIN; the image has nftables
    and both files (referee/server/PROTOCOL.md, "Server limits")."""
    problems: list[str] = []
    for c in arena_containers(deploy):
        if c.path != ("serve", "referee"):
            continue
        if c.where.startswith("docker-compose"):
            if c.spec.get("entrypoint") != [CONNLIMIT_ENTRYPOINT]:
                problems.append(f"{c.where}: not started by {CONNLIMIT_ENTRYPOINT}: no per-address "
                                "connection cap")
            if "NET_ADMIN" not in (c.spec.get("cap_add") or []):
                problems.append(f"{c.where}: no NET_ADMIN, which the entrypoint needs to load the cap")
            continue
        loads = [
            i for i in c.pod.get("initContainers") or []
            if i.get("command") == ["nft", "-f", CONNLIMIT_RULES]
            and "NET_ADMIN" in (((i.get("securityContext") or {}).get("capabilities") or {}).get("add") or [])
        ]
        if not loads:
            problems.append(f"{c.where}: no init container runs nft -f {CONNLIMIT_RULES} with NET_ADMIN: "
                            "no per-address connection cap")
    copied = _copied(deploy)
    for wanted in ("deploy/referee-connlimit.nft", "deploy/referee-entrypoint.sh"):
        if wanted not in copied:
            problems.append(f"Dockerfile: does not COPY {wanted}")
    if "nftables" not in (deploy / "Dockerfile").read_text(encoding="utf-8").split():
        problems.append("Dockerfile: does not install nftables (the referee's connection cap)")
    return problems


def check_sandbox(deploy: Path = DEPLOY) -> list[str]:
    """The workers (`arena worker` without --unsafe-no-sandbox) get what the hosted-bot
    sandbox needs: root and privileges (workers/SANDBOX.md); nothing else is privileged (the
    referee's compose entrypoint starts as root only to load its connection cap)."""
    problems: list[str] = []
    for c in arena_containers(deploy):
        is_worker = c.path == ("worker",)
        if c.where.startswith("docker-compose"):
            privileged = bool(c.spec.get("privileged"))
            root = str(c.spec.get("user", "")) in ("root", "0", "0:0") and not _starts_unprivileged(c)
        else:
            sc = c.spec.get("securityContext") or {}
            privileged = bool(sc.get("privileged"))
            uid = sc.get("runAsUser", (c.pod.get("securityContext") or {}).get("runAsUser"))
            root = uid == 0
        if is_worker and "--unsafe-no-sandbox" in c.argv:
            problems.append(f"{c.where}: runs hosted bots without the sandbox")
        if is_worker and not (privileged and root):
            problems.append(f"{c.where}: the sandbox needs a privileged container running as root "
                            "(workers/SANDBOX.md); without it every hosted match fails")
        if not is_worker and (privileged or root):
            problems.append(f"{c.where}: privileged or root, which only the workers need")
    return problems


CHECKS = (check_commands, check_env, check_ports, check_processes, check_metrics, check_secrets, check_pods,
          check_sandbox, check_image, check_connlimit)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every tool and every check; print one line each; 1 if any failed."""
    parser = argparse.ArgumentParser(prog="python -m deploy.checks", description=__doc__.splitlines()[0])
    parser.add_argument("--deploy", type=Path, default=DEPLOY, help="the deploy folder (default: this one)")
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="arena-deploy-check-") as tmp:
        for check in tool_checks(args.deploy, Path(tmp)):
            ok, output = run_tool(check)
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {check.name}" + ("" if ok else "\n" + _indent(output)))
    for fn in CHECKS:
        problems = fn(args.deploy)
        failed += bool(problems)
        name = fn.__name__.replace("_", " ")
        print(f"{'FAIL' if problems else 'ok  '} {name}" + "".join(f"\n    {p}" for p in problems))
    print(f"deploy-check: {failed} failed" if failed else "deploy-check: all passed")
    return 1 if failed else 0


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines()[-30:])


if __name__ == "__main__":
    raise SystemExit(main())
