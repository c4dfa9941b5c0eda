"""Secrets out of what the wizard stores (issue 22, item 6): the one redaction (wizard/core/redact.py) and the run
folder's writer (wizard/run/records.py). docs/security.md, section i22-secrets, names these tests."""
from __future__ import annotations

import json
import os
import stat

import pytest

from wizard.core.redact import REDACTED, Redactor, is_secret_name, secret_values
from wizard.run.records import GITIGNORE, LOG, RunDir, read_metrics, read_summary

HF = "hf_canaryQWERTYUIOPASDFGHJKLZXCVBNM0123"
WANDB = "wandb-canary-0123456789abcdef"
AWS = "aws/canary+Secret0123456789"
ENV = {"HF_TOKEN": HF, "WANDB_API_KEY": WANDB, "AWS_SECRET_ACCESS_KEY": AWS, "PATH": "/usr/bin",
       "TOKENIZERS_PARALLELISM": "false", "AWS_REGION": "eu-west-1", "FLAG_TOKEN": "1"}
CANARIES = (HF, WANDB, AWS)


def _stored(root) -> str:
    """Every byte under ``root``, as text (bytes that are not UTF-8 replaced)."""
    out = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as f:
                out.append(f.read().decode("utf-8", "replace"))
    return "\n".join(out)


@pytest.mark.parametrize("name", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "GITHUB_TOKEN", "--token", "--hf-token",
                                  "hub_token", "WANDB_API_KEY", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY",
                                  "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "AWS_REGION", "DB_PASSWORD",
                                  "MLFLOW_TRACKING_PASSWORD", "CLIENT_SECRET", "SSH_PRIVATE_KEY", "ENCRYPTION_KEY",
                                  "GOOGLE_APPLICATION_CREDENTIALS"])
def test_secret_looking_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["TOKENIZERS_PARALLELISM", "tokens_per_s", "max_new_tokens", "PATH", "HOME",
                                  "KEY", "monkey", "PYTHONHASHSEED", "MASTER_PORT", "loss", "NCCL_DEBUG"])
def test_ordinary_names_are_not_secret(name):
    assert not is_secret_name(name)


def test_only_values_long_enough_and_of_secret_names_are_searched_for():
    assert set(secret_values(ENV)) == set(CANARIES)  # not "1", "false", the region or the PATH


@pytest.mark.parametrize("line", [
    # DeepSpeed's runner, as it logs the pdsh command (a value with other characters is double-quoted)
    f"[INFO] [runner.py:618:main] cmd = pdsh -S -f 1024 -w node1,node2 export HF_TOKEN={HF}; "
    f"export WANDB_API_KEY={WANDB}; export AWS_SECRET_ACCESS_KEY=\"{AWS}\"; cd /w; python -u -m x",
    f"environ({{'HF_TOKEN': '{HF}', 'WANDB_API_KEY': '{WANDB}', 'AWS_SECRET_ACCESS_KEY': '{AWS}'}})",
    f'{{"HF_TOKEN": "{HF}", "WANDB_API_KEY": "{WANDB}", "AWS_SECRET_ACCESS_KEY": "{AWS}"}}',
    f"train.py --hf_token {HF} --wandb-api-key={WANDB} --aws_secret_access_key \"{AWS}\"",
    f"WARNING: Skipping HF_TOKEN={HF} as it contains forbidden characters {WANDB} {AWS}",
])
def test_every_form_of_a_known_secret_is_replaced(line):
    out = Redactor(ENV).text(line)
    assert not any(c in out for c in CANARIES), out
    assert REDACTED in out


@pytest.mark.parametrize("line, gone", [
    ("export MY_SERVICE_TOKEN=notInOurEnvironment42;", "notInOurEnvironment42"),  # a ~/.deepspeed_env line
    ("'db_password': 'hunter2hunter2'", "hunter2hunter2"),
    ("--api-key sk-abcdefghijklmnopqrstuvwx", "sk-abcdefghijklmnopqrstuvwx"),
    ("logged in with hf_abcdefghijklmnopqrstuvwxyz0123456789", "hf_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("key id AKIAABCDEFGHIJKLMNOP in use", "AKIAABCDEFGHIJKLMNOP"),
    ("index https://user:pa55w0rd@pypi.example.org/simple", "pa55w0rd"),
])
def test_secrets_not_in_the_environment_are_replaced_by_name_or_shape(line, gone):
    out = Redactor({}).text(line)
    assert gone not in out and REDACTED in out, out


@pytest.mark.parametrize("line", [
    "step 12/40 loss=2.3125 lr=1.00e-04 tokens_per_s=5321.0 TOKENIZERS_PARALLELISM=false",
    '{"fsdpds": 1, "kind": "step", "step": 3, "loss": 1.25, "tokens_per_s": 980.5}',
    "the tokenizer read token: 512 of the prompt; AWS_REGION is eu-west-1",
    " 42%|####      | 42/100 [00:10<00:14, 4.10it/s, loss=2.1]",
])
def test_ordinary_output_is_left_alone(line):
    assert Redactor(ENV).text(line) == line


def test_text_that_changes_length_when_lowered_keeps_its_positions():
    text = "İstanbul İİİİİİİİİİİİİİİİ\nexport HF_TOKEN=abcdefghijkl; loss=2.0\nplain İ\n"
    assert Redactor({}).text(text) == f"İstanbul İİİİİİİİİİİİİİİİ\nexport HF_TOKEN={REDACTED}; loss=2.0\nplain İ\n"


def test_bytes_that_are_not_utf8_come_back_unchanged():
    raw = b"\xff\xfe binary \x80 HF_TOKEN=" + HF.encode() + b" \xc3\n"
    out = Redactor(ENV).bytes(raw)
    assert out == b"\xff\xfe binary \x80 HF_TOKEN=" + REDACTED.encode() + b" \xc3\n"


def test_an_argument_list_loses_the_value_after_a_secret_flag():
    r = Redactor({})
    assert r.argv(["train.py", "--hub-token", "literal-value-1", "--steps", "3", "--password=abc"]) == \
        ["train.py", "--hub-token", REDACTED, "--steps", "3", f"--password={REDACTED}"]


# ------------------------------------------------------------------------------------------------ the run folder
def test_attack_no_canary_is_stored_whatever_the_chunking(tmp_path):
    """The log is written as the output arrives, in chunks cut anywhere: a secret cut in two is still found."""
    run = RunDir(tmp_path / "out", redactor=Redactor(ENV))
    run.open()
    text = (f"cmd = pdsh -w node1 export HF_TOKEN={HF}; export WANDB_API_KEY={WANDB};\r\n"
            f"{{'AWS_SECRET_ACCESS_KEY': '{AWS}'}}\n" + "plain line\n" * 3 + f"no newline at the end {HF}")
    data = text.encode()
    for size in (1, 3, 7, 64):  # every cut position of the secrets comes up
        for i in range(0, len(data), size):
            run.log_bytes(data[i:i + size])
    run.add_metrics([{"step": 1, "loss": 2.0, "note": f"token {HF}", "hf_token": "xyzxyzxyzxyz"}])
    run.write_command(["train.py", "--hf_token", HF], str(tmp_path), {"WANDB_API_KEY": WANDB})
    run.write_files({"answers.yaml": f"launch:\n  script_args: [--steps, '3', {HF}]\n"})
    run.close()
    run.write_summary({"argv": ["python", "train.py", f"--token={AWS}"], "diagnosis": [{"seen": [f"bad {WANDB}"]}]})
    stored = _stored(tmp_path / "out")
    assert not any(c in stored for c in CANARIES)
    log = (run.path / LOG).read_text()
    assert log.count("plain line\n") == 3 * 4 and log.endswith(f"no newline at the end {REDACTED}")
    assert read_metrics(run.path)[0] == {"step": 1, "loss": 2.0, "note": f"token {REDACTED}", "hf_token": REDACTED}
    assert json.loads((run.path / "command.json").read_text())["argv"] == ["train.py", "--hf_token", REDACTED]
    assert read_summary(run.path)["argv"][-1] == f"--token={REDACTED}"


def test_run_folders_are_private_and_runs_is_ignored_by_git(tmp_path):
    old = os.umask(0o022)
    try:
        first = RunDir(tmp_path / "out")
        second = RunDir(tmp_path / "out")
    finally:
        os.umask(old)
    for run in (first, second):
        assert stat.S_IMODE(run.path.stat().st_mode) == 0o700
    ignore = tmp_path / "out" / "runs" / GITIGNORE
    assert ignore.read_text().splitlines()[-1] == "*"


def test_an_existing_runs_folder_without_gitignore_gets_one_and_a_users_own_is_kept(tmp_path):
    (tmp_path / "a" / "runs").mkdir(parents=True)
    RunDir(tmp_path / "a")
    assert (tmp_path / "a" / "runs" / GITIGNORE).read_text().splitlines()[-1] == "*"
    (tmp_path / "b" / "runs").mkdir(parents=True)
    (tmp_path / "b" / "runs" / GITIGNORE).write_text("# mine\n*.log\n")
    RunDir(tmp_path / "b")
    assert (tmp_path / "b" / "runs" / GITIGNORE).read_text() == "# mine\n*.log\n"


def test_attack_a_link_planted_at_runs_gitignore_is_not_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own words\n")
    for name, target in (("a", victim), ("b", tmp_path / "created-through-a-dangling-link")):
        (tmp_path / name / "runs").mkdir(parents=True)
        (tmp_path / name / "runs" / GITIGNORE).symlink_to(target)
        run = RunDir(tmp_path / name)
        assert (tmp_path / name / "runs" / GITIGNORE).is_symlink() and run.path.is_dir()
    assert victim.read_text() == "the victim's own words\n"
    assert not (tmp_path / "created-through-a-dangling-link").exists()
