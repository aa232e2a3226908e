"""``arena account create NAME --db URL [--operator]``: an account made in the database itself.

The operator's way to make the first (operator) account, or any account, on the server host:
it talks to the database (``--db``, else ``$DATABASE_URL``, else the embedded default), not to
the API, and prints the account's first key once, on stdout (or writes it to ``--key-file``,
mode 0600). Without ``--db`` and ``--operator``, ``arena account create`` is the API client's
(``cli/client.py``), which needs an operator key.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["UPGRADE_FIRST", "create_account_locally"]

#: what an operator command on an unmigrated (or older) database tells the operator to do
UPGRADE_FIRST = "run `arena db upgrade` first (on the same database: --url URL or $DATABASE_URL)"


def create_account_locally(args: argparse.Namespace) -> int:
    """Create account `args.name` in the database `args.db` (operator if `args.operator`)."""
    from ladder.accounts import create_account
    from ladder.api_server import schema_problem
    from ladder.db import create_engine, database_url
    from ladder.errors import LadderError

    url = database_url(args.db)
    engine = create_engine(url)
    try:
        problem = schema_problem(engine, UPGRADE_FIRST)
        if problem is not None:
            print(f"error: {problem}", file=sys.stderr)
            return 1
        made = create_account(engine, args.name, is_operator=bool(args.operator))
    except LadderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    role = "operator account" if made.is_operator else "account"
    key_file = getattr(args, "key_file", None)
    if key_file:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(made.api_key + "\n")
        print(f"created {role} {made.name} (id {made.account_id}); its API key is in {key_file}",
              file=sys.stderr)
        return 0
    print(f"created {role} {made.name} (id {made.account_id}); its API key (shown once):",
          file=sys.stderr)
    print(made.api_key)
    return 0
