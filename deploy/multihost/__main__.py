"""``python -m deploy.multihost``: the multi-host drill; prints one JSON line (``make multihost``)."""

from __future__ import annotations

import argparse
import json
import sys

from deploy.multihost.run import report_json, run_multihost


def main(argv: list[str] | None = None) -> int:
    """Run the drill; 0 if no match was lost or counted twice and the audit passed."""
    parser = argparse.ArgumentParser(prog="python -m deploy.multihost", description=__doc__)
    parser.add_argument("--matches", type=int, default=100, help="matches in the season (default 100)")
    parser.add_argument("--phase-seconds", type=float, default=30.0,
                        help="how long each throughput phase (one host, two hosts) is measured")
    parser.add_argument("--keep", action="store_true", help="keep the run folder (logs) in /tmp")
    args = parser.parse_args(argv)
    report = run_multihost(args.matches, args.phase_seconds, keep=args.keep)
    print(json.dumps(report_json(report), sort_keys=True), flush=True)
    return 0 if report.lost == 0 and report.recorded_twice == 0 and report.audit == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
