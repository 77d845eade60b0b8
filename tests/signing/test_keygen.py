"""`keygen`: key files, their modes, the printed key id, and refusal to overwrite."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lineage_protocol import key_id, keygen, load_private_key, load_public_key

REPO = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """With umask 0, any mode other than the one given at creation would show."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def test_keygen_writes_a_0600_private_key_and_a_public_pem_and_prints_the_key_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], permissive_umask: None
) -> None:
    assert keygen.main(["--out", str(tmp_path)]) == 0
    private_key = load_private_key(tmp_path / "agent.key")
    public_key = load_public_key(tmp_path / "agent.pub.pem")
    assert public_key.public_bytes_raw() == private_key.public_key().public_bytes_raw()
    assert mode(tmp_path / "agent.key") == 0o600
    assert mode(tmp_path / "agent.pub.pem") == 0o644
    assert capsys.readouterr().out == key_id(public_key) + "\n"


def test_keygen_uses_the_given_name_and_creates_the_directory_private(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], permissive_umask: None
) -> None:
    out = tmp_path / "keys" / "prod"
    assert keygen.main(["--out", str(out), "--name", "node-7"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["node-7.key", "node-7.pub.pem"]
    assert mode(out) == 0o700
    assert capsys.readouterr().out.strip() == key_id(load_public_key(out / "node-7.pub.pem"))


def test_keygen_makes_a_new_key_each_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert keygen.main(["--out", str(tmp_path), "--name", "a"]) == 0
    assert keygen.main(["--out", str(tmp_path), "--name", "b"]) == 0
    first, second = capsys.readouterr().out.split()
    assert first != second


@pytest.mark.parametrize("existing", ["agent.key", "agent.pub.pem"])
def test_keygen_refuses_to_overwrite_an_existing_key(
    existing: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / existing).write_text("precious")
    assert keygen.main(["--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "already exists" in captured.err and existing in captured.err
    assert (tmp_path / existing).read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == [existing]


@pytest.mark.parametrize("name", ["../escape", "sub/dir", ".hidden", ""])
def test_keygen_rejects_a_name_that_is_not_a_plain_file_name(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        keygen.main(["--out", str(tmp_path), "--name", name])
    assert exited.value.code == 2
    assert "not a plain file name" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_keygen_runs_as_a_module(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "lineage_protocol.keygen", "--out", str(tmp_path)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == key_id(load_public_key(tmp_path / "agent.pub.pem"))
    assert mode(tmp_path / "agent.key") & 0o077 == 0
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert again.returncode == 2
    assert "refusing to overwrite" in again.stderr
