"""What a bot version's command means."""

from __future__ import annotations

import pytest

from workers.bot_commands import BotCommandError, builtin_command, parse_command


def test_builtin_remote_and_hosted_commands() -> None:
    assert parse_command("builtin:greedy").kind == "builtin"
    assert parse_command("builtin:greedy").builtin == "greedy"
    slow = parse_command(builtin_command("random", think_ms=5))
    assert (slow.kind, slow.builtin, slow.think_ms) == ("builtin", "random", 5)
    assert parse_command("remote").kind == "remote"
    hosted = parse_command("python my_bot.py --fast")
    assert hosted.kind == "hosted" and hosted.raw == "python my_bot.py --fast"


@pytest.mark.parametrize("bad", ["builtin:", "builtin:random?speed=1", "builtin:random?think_ms=x",
                                 "builtin:random?think_ms=-1"])
def test_malformed_builtin_commands_are_refused(bad: str) -> None:
    with pytest.raises(BotCommandError):
        parse_command(bad)
