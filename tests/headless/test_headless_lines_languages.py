"""``--headless ... --lang tr|zh-TW`` and ``presets --lang tr|zh-TW`` (issue 27): the lines around the commands of a
launch on several machines, the hostfile and Trainer notes and the bundled presets' descriptions in Turkish and
Traditional Chinese; the commands, paths, host names and keys exactly as written, and the files written keep their
English comments."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from wizard.core.answers import answers_from_mapping, multinode
from wizard.core.localized import said

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("tr", "zh-TW")

PDSH = {"schema_version": 1, "backend": "deepspeed", "sharding": {"strategy": "full"},
        "launch": {"num_processes": 16, "num_machines": 2, "ds_multinode_launcher": "pdsh",
                   "ds_hostfile": "/etc/ds/hostfile"}}

# each language: its words for the head lines, the comments, the hostfile lines, the Trainer line and the presets
WORDS = {
    "tr": {"each": "2 makineyle her makinede bir komut çalıştırın:", "main": "# makine 0 (ana) üzerinde:",
           "second": "# makine 1 üzerinde:", "runner": "ilk host'ta bir kez çalıştırın",
           "first_named": "# node-a üzerinde, hostfile'daki ilk host (her makineyi o başlatır):",
           "first": "# hostfile'daki ilk host üzerinde (her makineyi o başlatır):",
           "hostfile": "için DeepSpeed hostfile'ı", "placeholders": "yer tutucu host adlarıyla (CHANGE-ME-host-N)",
           "note": "not: başlatıcı pdsh", "trainer": "Trainer bunları TrainingArguments'tan alır",
           "zero2": "optimizatör durumu ve gradyanlar partition'lanır", "use_one": "birini şununla kullanın:",
           "none": "içinde hiç ön ayar bulunamadı"},
    "zh-TW": {"each": "共 2 台機器，請在每台機器上各執行一個命令：", "main": "# 在機器 0（主機器）上：",
              "second": "# 在機器 1 上：", "runner": "的第一台主機上執行一次",
              "first_named": "# 在 node-a（hostfile 的第一台主機，由它啟動每台機器）上：",
              "first": "# 在 hostfile 的第一台主機上（由它啟動每台機器）：",
              "hostfile": "的 DeepSpeed hostfile", "placeholders": "含預留主機名稱（CHANGE-ME-host-N）",
              "note": "附註：使用 pdsh 啟動器時", "trainer": "Trainer 從 TrainingArguments 取得這些值",
              "zero2": "最佳化器狀態與梯度分割", "use_one": "使用方式：", "none": "找不到任何預設組合"},
}
ENGLISH_FRAME = ("run one command on each", "with several machines", "# on ", "wrote the DeepSpeed hostfile",
                 "put it on the host", "placeholder host names", "note: ", "the Trainer takes these",
                 "also in ", "are written", "replace it with")


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", **(env or {})}
    done = subprocess.run([sys.executable, "-m", "wizard", *args], capture_output=True, text=True, encoding="utf-8",
                          env=env, cwd=ROOT, timeout=120)
    return done.returncode, done.stdout + done.stderr


def _no_english_frame(out: str) -> None:
    left = [w for w in ENGLISH_FRAME if w in out]
    assert not left, (left, out)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", ["fsdp2-two-node", "zero3-two-node"])
def test_two_node_presets_say_each_machines_command_in_the_language(tmp_path, lang, preset):
    code, out = _run("--headless", preset, "--out", str(tmp_path / "o"), "--lang", lang)
    assert code == 0, out
    w = WORDS[lang]
    cfg = (tmp_path / "o").resolve() / "accelerate_config.yaml"
    assert (f"{w['each']}\n"
            f"  {w['main']}\n"
            f"  accelerate launch --config_file {cfg} --machine_rank 0 --main_process_ip 10.0.0.1 "
            "--main_process_port 29500 train.py\n"
            f"  {w['second']}\n"
            f"  accelerate launch --config_file {cfg} --machine_rank 1 --main_process_ip 10.0.0.1 "
            "--main_process_port 29500 train.py\n") in out
    _no_english_frame(out)


@pytest.mark.parametrize("lang", LANGS)
def test_runner_launch_with_hosts_says_the_hostfile_and_the_note_in_the_language(tmp_path, lang):
    answers = tmp_path / "a.yaml"
    answers.write_text(yaml.safe_dump({**PDSH, "launch": {**PDSH["launch"], "hosts": ["node-a", "node-b"]}}))
    code, out = _run("--headless", str(answers), "--out", str(tmp_path / "o"), "--lang", lang)
    assert code == 0, out
    w = WORDS[lang]
    cfg = (tmp_path / "o").resolve() / "accelerate_config.yaml"
    assert w["runner"] in out
    assert f"  {w['first_named']}\n  accelerate launch --config_file {cfg} train.py\n" in out
    hostfile_line = next(row for row in out.splitlines() if w["hostfile"] in row)
    assert str(tmp_path / "o" / "hostfile") in hostfile_line
    assert "node-a, node-b" in hostfile_line and "launch.hosts" in hostfile_line
    assert "/etc/ds/hostfile" in hostfile_line
    assert w["note"] in out and ".deepspeed_env" in out
    _no_english_frame(out)
    # the hostfile written keeps its English comment
    assert (tmp_path / "o" / "hostfile").read_text().startswith("# DeepSpeed hostfile (fsdpds-wizard): one line per")


@pytest.mark.parametrize("lang", LANGS)
def test_runner_launch_without_hosts_names_the_placeholders_in_the_language(tmp_path, lang):
    answers = tmp_path / "a.yaml"
    answers.write_text(yaml.safe_dump(PDSH))
    code, out = _run("--headless", str(answers), "--out", str(tmp_path / "o"), "--lang", lang)
    assert code == 0, out
    w = WORDS[lang]
    assert f"  {w['first']}\n" in out
    hostfile_line = next(row for row in out.splitlines() if w["placeholders"] in row)
    assert str(tmp_path / "o" / "hostfile") in hostfile_line
    assert "/etc/ds/hostfile" in hostfile_line and "launch.hosts" in hostfile_line
    _no_english_frame(out)
    assert "CHANGE-ME-host-1 slots=8" in (tmp_path / "o" / "hostfile").read_text()


@pytest.mark.parametrize("lang", LANGS)
def test_trainer_arguments_line_in_the_language(tmp_path, lang):
    answers = tmp_path / "a.yaml"
    answers.write_text("schema_version: 1\nbackend: deepspeed\nlaunch:\n  training_loop: trainer\n")
    code, out = _run("--headless", str(answers), "--out", str(tmp_path / "o"), "--lang", lang)
    assert code == 0, out
    row = next(row for row in out.splitlines() if WORDS[lang]["trainer"] in row)
    assert str(tmp_path / "o" / "training_arguments.json") in row
    assert row.endswith("TrainingArguments(gradient_accumulation_steps=1, max_grad_norm=1.0, bf16=True)")
    assert '"auto"' in row
    _no_english_frame(out)


def test_the_comment_lines_are_where_words_and_the_placeholder_is_translated():
    """The comments before the commands read as NodeCommand.where says (English unchanged), and the placeholder's
    comment, which --headless only shows with an error, is a sentence the languages have too."""
    cases = [
        {"backend": "fsdp", "launch": {"num_processes": 4, "num_machines": 2, "main_process_port": 6000}},
        {"backend": "fsdp", "launch": {"num_processes": 6, "num_machines": 3, "hosts": ["n0", "n1", "n2"]}},
        {k: v for k, v in PDSH.items() if k != "schema_version"},
        {**PDSH, "launch": {**PDSH["launch"], "hosts": ["node-a", "node-b"]}},
    ]
    for doc in cases:
        a, findings = answers_from_mapping({k: v for k, v in doc.items() if k != "schema_version"})
        assert a is not None, findings
        comments = [row for row in multinode.commands_text(a, "c.yaml").splitlines() if row.startswith("# on ")]
        assert comments == [f"# on {c.where}:" for c in multinode.node_commands(a, "c.yaml")]
        for row in comments:
            for lang in LANGS:
                assert said(row[2:], lang) != row[2:], (lang, row)
    a, _ = answers_from_mapping(cases[0])
    first = multinode.commands_text(a, "c.yaml").splitlines()[0][2:]
    assert said(first, "tr") == "MAIN-MACHINE-ADDRESS: bunu makine 0'ın adresiyle değiştirin (launch.main_process_ip)"
    assert said(first, "zh-TW") == "MAIN-MACHINE-ADDRESS：請換成機器 0 的位址（launch.main_process_ip）"


@pytest.mark.parametrize("lang", LANGS)
def test_presets_lists_the_bundled_descriptions_in_the_language(lang):
    code, out = _run("presets", "--lang", lang)
    assert code == 0, out
    w = WORDS[lang]
    zero2 = next(row for row in out.splitlines() if row.startswith("zero2 "))
    assert w["zero2"] in zero2 and "DeepSpeed ZeRO-2" in zero2
    assert f"{w['use_one']}" in out and "fsdpds-wizard --headless deepspeed-ulysses --out DIR" in out
    assert "use one with" not in out and "optimizer state and gradients partitioned" not in out


def test_presets_of_ones_own_folder_keep_their_descriptions_as_written(tmp_path):
    (tmp_path / "zero2.yaml").write_text("# my own ZeRO-2 for the lab cluster\nschema_version: 1\nbackend: deepspeed\n")
    (tmp_path / "mine.yaml").write_text("# DeepSpeed ZeRO-2: optimizer state and gradients partitioned, parameters "
                                        "replicated.\nschema_version: 1\nbackend: deepspeed\n")
    code, out = _run("presets", "--lang", "tr", env={"FSDPDS_TEMPLATES": str(tmp_path)})
    assert code == 0, out
    assert "zero2  my own ZeRO-2 for the lab cluster" in out  # not the bundled words: as written
    assert "mine   DeepSpeed ZeRO-2: optimizer state and gradients partitioned" in out  # not a bundled name
    assert "birini şununla kullanın: fsdpds-wizard --headless mine --out DIR" in out


@pytest.mark.parametrize("lang", LANGS)
def test_no_presets_found_in_the_language(tmp_path, lang):
    code, out = _run("presets", "--lang", lang, env={"FSDPDS_TEMPLATES": str(tmp_path / "none")})
    assert code != 0
    assert WORDS[lang]["none"] in out and str(tmp_path / "none") in out and "FSDPDS_TEMPLATES" in out
    assert "no presets found" not in out


def test_every_bundled_preset_is_described_in_each_language():
    """The descriptions' English is the shipped files' headers themselves (one place); each has its translation, and
    an edited header is shown as written (its translation is keyed to the shipped English)."""
    from wizard.core.presets import bundled_dir, describe, description

    for path in sorted(bundled_dir().glob("*.yaml")):
        english = describe(path)
        assert english and description(path.stem, path, "en") == english
        for lang in ("tr", "zh-TW"):
            assert description(path.stem, path, lang) not in ("", english), (path.stem, lang)


def test_an_edited_header_is_shown_as_written(tmp_path):
    from wizard.core.presets import bundled_dir, description

    shipped = bundled_dir() / "zero2.yaml"
    edited = tmp_path / "zero2.yaml"
    edited.write_text("# My own ZeRO-2 for the lab cluster.\n" + shipped.read_text(encoding="utf-8").split("\n", 2)[-1])
    assert description("zero2", edited, "zh-TW") == "My own ZeRO-2 for the lab cluster."


MESH = {"tr": "Mesh: dp_shard 4 x tp 2 = 8 rank (en hızlı değişen son boyuttur)",
        "zh-TW": "Mesh：dp_shard 4 x tp 2 = 8 個 rank（最後一個維度變化最快）"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_mesh_heading_in_the_language_with_the_rows_as_drawn(tmp_path, lang):
    code, out = _run("--headless", "fsdp2-tp", "--transformers-version", "5.0.0", "--out", str(tmp_path / "o"),
                     "--lang", lang)
    assert code == 0, out
    assert f"{MESH[lang]}\nrank       0 1 2 3 4 5 6 7\ndp_shard   0 0 1 1 2 2 3 3\n" in out
    # the picture's groups and the finding parallelism-mesh-layout's, each in the language
    groups = {"tr": "tp grupları: [0,1] [2,3] [4,5] [6,7]", "zh-TW": "tp 群組：[0,1] [2,3] [4,5] [6,7]"}[lang]
    assert out.count(groups) >= 2, out
    assert "groups:" not in out and "varies fastest" not in out
    _no_english_frame(out)


def test_the_mesh_picture_past_its_limit_says_so_in_the_language():
    from wizard.core.mesh import mesh_picture

    rows = mesh_picture({"dp_shard": 8, "tp": 4}, limit=16)
    assert rows[-3] == "(ranks 16 to 31 follow the same pattern)"
    assert said(rows[-3], "tr") == "(16 ile 31 arasındaki rank'ler aynı düzeni izler)"
    assert said(rows[-3], "zh-TW") == "（rank 16 至 31 依相同規律排列）"


REFUSED = {"tr": "içeriği farklı olan mevcut dosya(lar) değiştirilmiyor", "zh-TW": "--force"}


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_write_is_said_in_the_language_with_the_path_as_written(tmp_path, lang):
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    (out_dir / "accelerate_config.yaml").write_text("mine: 1\n")
    code, out = _run("--headless", "zero2", "--out", str(out_dir), "--lang", lang)
    assert code != 0
    assert str(out_dir / "accelerate_config.yaml") in out and "--force" in out and REFUSED[lang] in out
    assert "refusing to replace existing file" not in out
