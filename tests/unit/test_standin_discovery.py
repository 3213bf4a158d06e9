"""Finding the stand-in's interpreter, and the message when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimon_mongo import standin


def test_no_python_313_fails_with_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    assert standin.find_python_313() is None
    with pytest.raises(standin.StandinError, match=r"Python >= 3\.13.*pyenv install 3\.13.*MONGODB_URI"):
        standin.ensure_mongoeco()


def test_pyenv_versions_are_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = standin.find_python_313()
    if found is None:
        pytest.fail("this machine should have a Python >= 3.13 for the stand-in (see docs/testing.md)")
    monkeypatch.setenv("PATH", str(tmp_path))
    fake_root = tmp_path / "pyenv"
    bin_dir = fake_root / "versions" / "3.13.9" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python3").symlink_to(found)
    monkeypatch.setenv("PYENV_ROOT", str(fake_root))
    assert standin.find_python_313() == str(bin_dir / "python3")


def test_configured_uri_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MONGODB_URI", "mongodb://db.example:27017")
    assert standin.configured_uri() == "mongodb://db.example:27017"
    monkeypatch.setenv("MONGODB_URI", "")
    assert standin.configured_uri() is None
