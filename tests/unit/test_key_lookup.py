"""One answer to "which setting writes this key" (issue 20): the catalogue's table (catalog/writes.py
``settings_of_key``), read by the key lookup (the TUI's jumps), by ``--headless``/the TUI's findings mapped to answers
(generate.lint_rendered) and by the renderer (``Rendered.provenance`` / ``shared``). They used to disagree on FSDP's
``fsdp_offload_params``: the catalogue's map said offload.optimizer, the lookup offload.params."""
from __future__ import annotations

import pytest

from wizard.core.answers import default_answers
from wizard.core.answers.generate import lint_rendered
from wizard.core.answers.render import render
from wizard.core.catalog import SETTINGS, TARGETS
from wizard.core.catalog.key_lookup import setting_for_key
from wizard.core.catalog.writes import SHARED_KEY_BLAME, key_to_setting, settings_of_key
from wizard.core.findings import ERROR, Finding
from wizard.tui.shared.present import finding_setting

OFFLOAD = "fsdp_config.fsdp_offload_params"
BACKENDS = ({"backend": "fsdp", "fsdp_version": 1}, {"backend": "fsdp", "fsdp_version": 2}, {"backend": "deepspeed"})
OFFLOADS = [(p, o) for p in ("none", "cpu") for o in ("none", "cpu")]


def test_a_key_several_settings_write_names_the_one_it_is_blamed_on():
    """Catalogue order must not decide silently: each shared key is listed, and only shared keys are."""
    shared = {key for key, sids in settings_of_key().items() if len(sids) > 1}
    dp_shard = "parallelism_config.parallelism_config_dp_shard_size"
    dp_replicate = "parallelism_config.parallelism_config_dp_replicate_size"
    assert shared == set(SHARED_KEY_BLAME) == {OFFLOAD, dp_shard, dp_replicate, "fp8_config.override_linear_precision"}
    assert settings_of_key()[dp_replicate] == ("sharding.strategy", "parallelism.dp_replicate_size")
    assert settings_of_key()[OFFLOAD] == ("offload.params", "offload.optimizer")
    assert settings_of_key()[dp_shard] == ("sharding.strategy", "parallelism.sp_size")
    declared = {s.id for s in SETTINGS for t in TARGETS for w in s.writes.get(t, ()) if w.key == OFFLOAD}
    assert set(settings_of_key()[OFFLOAD]) == declared


def test_the_lookup_and_the_table_agree_on_every_key():
    table = key_to_setting()
    assert {key: setting_for_key(key) for key in table} == table


@pytest.mark.parametrize("backend", BACKENDS, ids=["fsdp1", "fsdp2", "deepspeed"])
@pytest.mark.parametrize("params,optimizer", OFFLOADS)
def test_the_renderer_blames_each_key_as_the_table_does(backend, params, optimizer):
    """The renderer names the answer behind each key it writes: the table's, but for a shared key, the answer that
    turned it on (only the optimizer offloaded: offload.optimizer), else the table's first."""
    a = default_answers().replace({**backend, "offload.params": params, "offload.optimizer": optimizer})
    rendered = render(a)
    table = settings_of_key()
    for key, sid in rendered.provenance.items():
        if sid == "deepspeed.extra":
            continue
        if key in rendered.shared:
            assert rendered.shared[key] == table[key]
            on = [s for s in table[key] if a[s] != "none"]
            assert sid == (on or table[key])[0], (key, sid)
        else:
            assert sid == table[key][0], (key, sid, table[key])


def test_every_face_blames_fsdp_offload_params_on_one_setting():
    """The table, the lookup (the TUI's jump from a finding of ``check``), a finding of the rendered config mapped to
    answers, and the renderer's provenance: one answer for the same config."""
    a = default_answers().replace({"backend": "fsdp", "fsdp_version": 2})
    rendered = render(a)
    assert key_to_setting()[OFFLOAD] == setting_for_key(OFFLOAD) == rendered.provenance[OFFLOAD] == "offload.params"
    assert setting_for_key("fsdp_config.offload_params") == "offload.params"  # as accelerate also spells it
    assert finding_setting(Finding(ERROR, "r", (OFFLOAD,), "m", "f")) == "offload.params"
    rendered.accelerate["fsdp_config"]["fsdp_offload_params"] = "maybe"  # a value the plugin cannot read
    # a finding on the one switch both offload answers write names both (a fault caused by several settings names
    # all of them), the table's first first
    keys = [f.keys for f in lint_rendered(a, rendered) if OFFLOAD in f.message]
    assert keys and all(k[:2] == ("offload.params", "offload.optimizer") for k in keys)


@pytest.mark.parametrize("key,setting", [
    ("fsdp_config.min_num_params", "wrapping.min_num_params"),
    ("zero_optimization.offload_param", "offload.params"),
    ("zero_optimization.offload_optimizer", "offload.optimizer"),
    ("zero_optimization.offload_param.buffer_size", "offload.params"),
    ("deepspeed_config.zero_optimization.offload_param.buffer_count", "offload.params"),
    ("deepspeed_config.offload_param_nvme_path", "offload.nvme_path"),
    ("deepspeed_config.mixed_precision", "precision.mixed_precision"),
    ("deepspeed_config.num_processes", "launch.num_processes"),
    ("parallelism_config.num_machines", "launch.num_machines"),
    ("deepspeed_config.train_micro_batch_size_per_gpu", "training.micro_batch_size"),
    ("deepspeed_config.bf16.enabled", "precision.mixed_precision"),
    ("offload.params", "offload.params"),
    ("fsdp_config.num_processes", None),  # the launcher names it fsdp_num_processes: nothing reads that
    ("deepspeed_config.distributed_type", None),
    ("zero_optimization", None),
    ("tpu_env", None),
])
def test_spellings_accelerate_treats_the_same(key, setting):
    assert setting_for_key(key) == setting
