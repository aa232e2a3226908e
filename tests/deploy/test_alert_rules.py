"""What deploy/alerts.yml's rules do with given series: `promtool test rules` (Debian's promtool,
as `make deploy-check` uses; deploy/ensure-deploy-tools.sh installs it). A missing promtool fails.

`promtool check rules` (test_deploy_files.py) says a rule parses; this says when it fires.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from deploy.checks import DEPLOY

# one series per referee process, as Prometheus scrapes them (one target per metrics port); the
# value is the slot's restart count, which the supervisor keeps across the process's restarts
RESTARTS_TEST = """
rule_files: [{rules}]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      # a group up for hours: process 0 restarted at 70 and 80 min, process 1 once at 80 min
      - series: 'arena_referee_process_restarts{{job="arena-referee",instance="old:9809",process="0"}}'
        values: "0x69 1x10 2x100"
      - series: 'arena_referee_process_restarts{{job="arena-referee",instance="old:9810",process="1"}}'
        values: "0x79 1x100"
      # a group started at 120 min (no sample an hour earlier): restarted at 125 and 130 min
      - series: 'arena_referee_process_restarts{{job="arena-referee",instance="young:9809",process="0"}}'
        values: "_x120 0x4 1x4 2x40"
      # a supervisor restarted at 101 min: its slot's count went from 3 back to 0
      - series: 'arena_referee_process_restarts{{job="arena-referee",instance="reset:9809",process="0"}}'
        values: "3x100 0x60"
    alert_rule_test:
      - eval_time: 75m   # one restart in the hour: not yet
        alertname: ArenaRefereeProcessRestarting
        exp_alerts: []
      - eval_time: 90m   # process 0: two in the hour
        alertname: ArenaRefereeProcessRestarting
        exp_alerts:
          - exp_labels: {{severity: ticket, job: arena-referee, instance: "old:9809", process: "0"}}
            exp_annotations:
              summary: "Referee process 0 (old:9809) was restarted 2 times in the last hour"
      - eval_time: 135m  # old: one since 75 min; young: two since it started; reset: none
        alertname: ArenaRefereeProcessRestarting
        exp_alerts:
          - exp_labels: {{severity: ticket, job: arena-referee, instance: "young:9809", process: "0"}}
            exp_annotations:
              summary: "Referee process 0 (young:9809) was restarted 2 times in the last hour"
      - eval_time: 155m  # old: none since 95 min
        alertname: ArenaRefereeProcessRestarting
        exp_alerts:
          - exp_labels: {{severity: ticket, job: arena-referee, instance: "young:9809", process: "0"}}
            exp_annotations:
              summary: "Referee process 0 (young:9809) was restarted 2 times in the last hour"
"""


def promtool_test(text: str, tmp_path: Path, rules: Path = DEPLOY / "alerts.yml") -> tuple[bool, str]:
    promtool = shutil.which("promtool")
    assert promtool, "promtool is not installed (run deploy/ensure-deploy-tools.sh)"
    test = tmp_path / "rules_test.yml"
    test.write_text(text.format(rules=rules), encoding="utf-8")
    done = subprocess.run([promtool, "test", "rules", str(test)], capture_output=True, text=True, timeout=120)
    return done.returncode == 0, done.stdout + done.stderr


def test_a_referee_process_restarted_twice_in_an_hour_alerts(tmp_path: Path) -> None:
    ok, output = promtool_test(RESTARTS_TEST, tmp_path)
    assert ok, output


def test_promtool_test_rules_fails_on_a_rule_that_does_not_do_it(tmp_path: Path) -> None:
    # the same expectations against a rule that looks back a minute, not an hour: it misses
    # the restarts at 90 min (one was at 70 min)
    rules = tmp_path / "alerts.yml"
    text = (DEPLOY / "alerts.yml").read_text(encoding="utf-8")
    old = "- (arena_referee_process_restarts offset 1h or"
    assert text.count(old) == 1, "update this test"
    rules.write_text(text.replace(old, "- (arena_referee_process_restarts offset 1m or"), encoding="utf-8")
    ok, output = promtool_test(RESTARTS_TEST, tmp_path, rules)
    assert not ok and "ArenaRefereeProcessRestarting" in output, output
