"""Atomic writes: all or nothing, never replacing a different file without force."""
import pytest

from wizard.core.files import WriteRefused, write_files


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
