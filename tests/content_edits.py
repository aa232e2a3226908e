"""Helpers the content tests of every game share: a writable copy of a game's content folder,
a JSON edit of one of its files, and the check that loading it fails naming the right place.

Each game's `tests/<g>/test_content.py` binds them to its own folder and loader.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.core.content_files import ContentError

__all__ = ["content_copy_fixture", "edit_json", "expect_content_error"]


def content_copy_fixture(source: Path, name: str = "content_copy") -> Any:
    """A pytest fixture (named `name`) giving a fresh copy of the content folder `source`."""

    @pytest.fixture(name=name)
    def content_copy(tmp_path: Path) -> Path:
        target = tmp_path / "content"
        shutil.copytree(source, target)
        return target

    return content_copy


def edit_json(path: Path, change: Callable[[Any], None]) -> None:
    """Apply `change` to the JSON data of the file `path`, in place."""
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def expect_content_error(
    load: Callable[[Path], Any], directory: Path, file: str, entry: str, field: str, words: str = ""
) -> ContentError:
    """Loading `directory` with `load` fails with a ContentError of `file`, `entry` and `field`,
    whose message names all three (and holds `words`)."""
    with pytest.raises(ContentError) as info:
        load(directory)
    err = info.value
    assert (err.file, err.entry, err.field) == (file, entry, field), str(err)
    message = str(err)
    assert file in message and repr(entry) in message and repr(field) in message, message
    assert words in message, message
    return err
