"""``--headless`` judges the written config for library versions: the ones the wizard was verified against by
default, the ``--LIB-version`` flags where given (a config meant for another machine's libraries), and, for a launch
on this machine, the installed ones (tests/e2e/test_rehearsal_parallel.py runs that with transformers 5.0)."""
from __future__ import annotations

from wizard.cli import main
from wizard.core.exits import EXIT_INVALID


def test_the_fsdp2_tp_preset_is_refused_for_the_verified_transformers(tmp_path, capsys):
    assert main(["--headless", "fsdp2-tp", "--out", str(tmp_path / "out")]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "parallelism-fsdp2-tp-transformers" in err and "transformers 5.24.0" in err
    assert not (tmp_path / "out" / "accelerate_config.yaml").exists()


def test_the_fsdp2_tp_preset_is_written_for_transformers_5_0(tmp_path, capsys):
    assert main(["--headless", "fsdp2-tp", "--out", str(tmp_path / "out"), "--transformers-version", "5.0.0"]) == 0
    err = capsys.readouterr().err
    assert "parallelism-fsdp2-tp-transformers" not in err
    written = (tmp_path / "out" / "accelerate_config.yaml").read_text()
    assert "parallelism_config_tp_size: 2" in written and "fsdp_cpu_ram_efficient_loading: false" in written


def test_ram_efficient_loading_beside_tp_is_an_error_naming_both_answers(tmp_path, capsys):
    answers = tmp_path / "tp.yaml"
    answers.write_text("schema_version: 1\nbackend: fsdp\nfsdp_version: 2\nlaunch:\n  num_processes: 8\n"
                       "parallelism:\n  tp_size: 2\n")
    assert main(["--headless", str(answers), "--out", str(tmp_path / "out"), "--transformers-version", "5.0.0"]) \
        == EXIT_INVALID
    err = capsys.readouterr().err
    line = next(ln for ln in err.splitlines() if "parallelism-fsdp2-tp-ram-efficient-loading" in ln)
    assert "parallelism.tp_size" in line and "loading.ram_efficient" in line


def test_a_version_flag_must_be_a_version_headless_and_in_the_wizard(tmp_path, capsys):
    """The wizard reads the flags as --headless does (tests/tui/test_judged_versions.py): one that is not a version
    is the same usage error, exit 2, before any screen opens; in front of a command it is refused."""
    said = "--transformers-version 'five': 'five' is not a version"
    assert main(["--headless", "fsdp2-tp", "--out", str(tmp_path), "--transformers-version", "five"]) == EXIT_INVALID
    assert said in capsys.readouterr().err
    assert main(["--preset", "fsdp2-tp", "--transformers-version", "five"]) == EXIT_INVALID
    assert said in capsys.readouterr().err
    assert main(["--deepspeed-version", "v.1"]) == EXIT_INVALID
    assert "--deepspeed-version 'v.1': 'v.1' is not a version" in capsys.readouterr().err
    assert main(["--transformers-version", "5.0.0", "presets"]) == EXIT_INVALID
    assert "--transformers-version goes without a command" in capsys.readouterr().err
