"""Atomic writes: all or nothing, never replacing a different file without force; file states and diffs."""
import os
import stat

import pytest

from wizard.core.answers.generate import imported_diff
from wizard.core.files import WriteRefused, file_state, unified_diff, write_files


def test_writes_new_files_and_creates_folders(tmp_path):
    files = {tmp_path / "a" / "x.yaml": "x: 1\n", tmp_path / "a" / "y.json": "{}\n"}
    result = write_files(files)
    assert sorted(p.name for p in result.written) == ["x.yaml", "y.json"]
    assert (tmp_path / "a" / "x.yaml").read_text() == "x: 1\n"
    assert not list((tmp_path / "a").glob(".*.tmp"))


def test_same_content_is_left_alone(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text("x: 1\n")
    mtime = p.stat().st_mtime_ns
    result = write_files({p: "x: 1\n"})
    assert result.unchanged == [p] and p.stat().st_mtime_ns == mtime


def test_refuses_to_replace_without_force_and_writes_nothing(tmp_path):
    keep = tmp_path / "keep.yaml"
    keep.write_text("mine\n")
    new = tmp_path / "new.yaml"
    with pytest.raises(WriteRefused) as info:
        write_files({new: "n\n", keep: "theirs\n"})
    assert info.value.paths == [keep]
    assert keep.read_text() == "mine\n" and not new.exists()


def test_force_keeps_a_backup(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text("old\n")
    result = write_files({p: "new\n"}, force=True)
    assert p.read_text() == "new\n"
    assert result.backups == [tmp_path / "x.yaml.bak"] and (tmp_path / "x.yaml.bak").read_text() == "old\n"


def test_a_folder_in_the_way_is_never_replaced(tmp_path):
    (tmp_path / "x.yaml").mkdir()
    with pytest.raises(WriteRefused):
        write_files({tmp_path / "x.yaml": "x\n"}, force=True)
    assert (tmp_path / "x.yaml").is_dir()


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_new_files_get_the_mode_open_would_give(tmp_path, umask_022):
    written = tmp_path / "out" / "x.yaml"
    write_files({written: "x: 1\n"})
    plain = tmp_path / "plain"
    plain.write_text("x")  # what a normal open() gives under this umask
    assert stat.S_IMODE(written.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode) == 0o644
    os.umask(0o077)
    private = tmp_path / "private.yaml"
    write_files({private: "p\n"})
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


def test_a_replaced_file_keeps_its_mode(tmp_path, umask_022):
    p = tmp_path / "x.yaml"
    p.write_text("old\n")
    p.chmod(0o640)
    write_files({p: "new\n"}, force=True)
    assert p.read_text() == "new\n" and stat.S_IMODE(p.stat().st_mode) == 0o640


def test_file_state_and_the_diffs(tmp_path):
    p = tmp_path / "accelerate_config.yaml"
    assert file_state(p, "a: 1\n") == "new"
    p.write_text("a: 1\n")
    assert file_state(p, "a: 1\n") == "same"
    assert file_state(p, "a: 2\n") == "changed"
    assert file_state(tmp_path, "a: 1\n") == "unreadable"  # a folder where the file goes
    diff = unified_diff(p, "a: 2\n")
    assert "--- accelerate_config.yaml (on disk)" in diff and "-a: 1" in diff and "+a: 2" in diff
    assert imported_diff((), {"accelerate_config.yaml": "a: 1\n"}) == ""
    assert imported_diff((p,), {"accelerate_config.yaml": "a: 1\n"}) == ""
    ds = tmp_path / "ds.json"
    ds.write_text("{}\n")
    both = imported_diff((p, ds), {"accelerate_config.yaml": "a: 1\n", "ds_config.json": "{\"x\": 1}\n"})
    assert "ds_config.json (to write)" in both and "accelerate_config.yaml (to write)" not in both
    assert "cannot read it now" in imported_diff((tmp_path / "gone.yaml",), {})
