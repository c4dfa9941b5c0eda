"""Issue 27: the commands' own lines around the findings (`--headless`'s "wrote ..." and summary, `check`'s verdict
line) in the chosen language, paths and commands as they are; English without --lang."""
from __future__ import annotations

import pytest

from wizard.cli import main
from wizard.core import i18n
from wizard.core.i18n.lines import LINES


def _said(lang: str, key: str, **values) -> str:
    return i18n.translate("lines", key, LINES[key], lang).format(**values)


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_headless_says_what_it_wrote_in_the_language(tmp_path, capsys, lang):
    out = tmp_path / "out"
    assert main(["--headless", "zero3-cpu-offload", "--out", str(out), "--lang", lang]) == 0
    got = capsys.readouterr()
    written = out / "accelerate_config.yaml"
    assert _said(lang, "wrote", path=written) in got.out
    assert f"wrote {written}" not in got.out
    assert "accelerate launch --config_file" in got.out  # the command itself stays as typed
    assert _said(lang, "summary", errors=0, warnings=0, notes=1) in got.err


def test_headless_says_it_in_english_without_a_language(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--headless", "zero3-cpu-offload", "--out", str(out), "--lang", "en"]) == 0
    got = capsys.readouterr()
    assert f"wrote {out / 'accelerate_config.yaml'}" in got.out
    assert "0 error(s), 0 warning(s), 1 note(s)" in got.err


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_check_gives_its_verdict_line_in_the_language(tmp_path, capsys, lang):
    assert main(["--headless", "zero3-cpu-offload", "--out", str(tmp_path), "--lang", "en"]) == 0
    capsys.readouterr()
    config = tmp_path / "accelerate_config.yaml"
    main(["check", str(config), "--lang", lang])
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert verdict.startswith(f"OK: {config}: ")  # the verdict word and the path stay as they are, for scripts
    assert _said(lang, "judged_for", what="")[:4] in verdict
    assert "judged for" not in verdict and "error(s)" not in verdict
    assert "accelerate 1." in verdict
