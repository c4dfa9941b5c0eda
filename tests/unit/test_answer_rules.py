"""Answer rules: each fires on a minimal case and is silent once fixed; every rule is exercised."""
import pytest
from helpers import PRESET_FILES

from wizard.core.answers import answers_from_mapping
from wizard.core.answers.rules import check_answers
from wizard.core.rules import ANSWER, in_section

ANSWER_RULES = in_section(ANSWER)


def A(doc):
    a, findings = answers_from_mapping(doc)
    assert a is not None, findings
    return a


DS = {"backend": "deepspeed"}
F1 = {"backend": "fsdp", "fsdp_version": 1}
F2 = {"backend": "fsdp", "fsdp_version": 2}
TWO = {"launch": {"num_processes": 16, "num_machines": 2, "main_process_ip": "10.0.0.1"}}
TRAINER = {"launch": {"training_loop": "trainer"}}
BF16_STATES = {"precision": {"ds_bf16_master_weights": "bf16_with_states"}}


def merge(*docs):
    out = {}
    for d in docs:
        for k, v in d.items():
            if isinstance(v, dict):
                out.setdefault(k, {}).update(v)
            else:
                out[k] = v
    return out


CASES = [
    # rule, bad answers, fixed answers, blamed key
    ("ds-extra-overrides-training",
     merge(DS, {"training": {"gradient_clipping": 0.7}, "deepspeed": {"extra": {"gradient_clipping": 0.5}}}),
     merge(DS, {"training": {"gradient_clipping": 0.5}, "deepspeed": {"extra": {"gradient_clipping": 0.5}}}),
     "training.gradient_clipping"),
    ("trainer-tool-unused", {"launch": {"trainer_tool": "axolotl"}},
     {"launch": {"trainer_tool": "axolotl", "training_loop": "trainer"}}, "launch.trainer_tool"),
    ("multinode-needs-main-ip", {"launch": {"num_processes": 16, "num_machines": 2}}, TWO, "launch.main_process_ip"),
    ("hosts-count", merge(TWO, {"launch": {"hosts": ["a", "b", "c"]}}), merge(TWO, {"launch": {"hosts": ["a", "b"]}}),
     "launch.hosts"),
    ("hosts-invalid", merge(TWO, {"launch": {"hosts": ["a", "b c"]}}), merge(TWO, {"launch": {"hosts": ["a", "bc"]}}),
     "launch.hosts"),
    ("hosts-invalid", merge(TWO, {"launch": {"hosts": ["-Fx", "b"]}}), merge(TWO, {"launch": {"hosts": ["x", "b"]}}),
     "launch.hosts"),
    ("hosts-unused", {"launch": {"hosts": ["a"]}}, {"launch": {"hosts": []}}, "launch.hosts"),
    ("script-looks-like-option", {"launch": {"script": "--num_processes=1"}},
     {"launch": {"script": "./--num_processes=1"}}, "launch.script"),
    ("script-args-remote-shell",
     merge(DS, TWO, {"launch": {"ds_multinode_launcher": "pdsh", "script_args": ["$(touch X)"]}}),
     merge(DS, TWO, {"launch": {"ds_multinode_launcher": "standard", "script_args": ["$(touch X)"]}}),
     "launch.script_args"),
    ("hosts-main-address-not-first", merge(TWO, {"launch": {"hosts": ["a", "10.0.0.1"]}}),
     merge(TWO, {"launch": {"hosts": ["10.0.0.1", "a"]}}), "launch.main_process_ip"),
    ("compile-options-unused", {"launch": {"dynamo_mode": "max-autotune"}},
     {"launch": {"dynamo_mode": "max-autotune", "dynamo_backend": "inductor"}}, "launch.dynamo_mode"),
    ("ds-compile-not-passed", merge(DS, {"launch": {"dynamo_backend": "inductor"}}),
     merge(F2, {"launch": {"dynamo_backend": "inductor"}}), "launch.dynamo_backend"),
    ("sharding-no-fsdp-twin", merge(F1, {"sharding": {"strategy": "optimizer"}}),
     merge(DS, {"sharding": {"strategy": "optimizer"}}), "sharding.strategy"),
    ("sharding-no-deepspeed-twin", merge(DS, {"sharding": {"strategy": "hybrid_grads_optimizer"}}),
     merge(F1, {"sharding": {"strategy": "hybrid_grads_optimizer"}}), "sharding.strategy"),
    ("hybrid-single-machine", {"sharding": {"strategy": "hybrid_full"}},
     merge(TWO, {"sharding": {"strategy": "hybrid_full"}}), "sharding.strategy"),
    ("hybrid-fsdp1-group-size", merge(F1, TWO, {"sharding": {"strategy": "hybrid_full"}}), merge(F1, TWO),
     "sharding.strategy"),
    ("fsdp-offload-all-or-nothing", {"offload": {"optimizer": "cpu"}},
     {"offload": {"optimizer": "cpu", "params": "cpu"}}, "offload.optimizer"),
    ("ds-param-offload-needs-zero3",
     merge(DS, {"sharding": {"strategy": "grads_optimizer"}, "offload": {"params": "cpu"}}),
     merge(DS, {"offload": {"params": "cpu"}}), "offload.params"),
    ("ds-nvme-needs-zero3", merge(DS, {"sharding": {"strategy": "grads_optimizer"},
                                       "offload": {"optimizer": "nvme", "nvme_path": "/n"}}),
     merge(DS, {"offload": {"optimizer": "nvme", "nvme_path": "/n"}}), "offload.optimizer"),
    ("ds-offload-needs-zero", merge(DS, {"sharding": {"strategy": "none"}, "offload": {"optimizer": "cpu"}}),
     merge(DS, {"sharding": {"strategy": "optimizer"}, "offload": {"optimizer": "cpu"}}), "offload.optimizer"),
    ("nvme-path-unused", merge(DS, {"offload": {"nvme_path": "/n"}}),
     merge(DS, {"offload": {"nvme_path": "/n", "params": "nvme"}}), "offload.nvme_path"),
    ("ds-zero3-init-cannot-be-off", merge(DS, {"loading": {"ram_efficient": False}}), DS, "loading.ram_efficient"),
    ("zero3-init-needs-zero3",
     merge(DS, {"sharding": {"strategy": "grads_optimizer"}, "loading": {"ram_efficient": True}}),
     merge(DS, {"loading": {"ram_efficient": True}}), "loading.ram_efficient"),
    ("fsdp2-no-local-state-dict", merge(F2, {"checkpoint": {"format": "local"}}),
     merge(F1, {"checkpoint": {"format": "local"}}), "checkpoint.format"),
    ("zero3-sharded-checkpoint", merge(DS, {"checkpoint": {"format": "sharded"}}),
     merge(DS, {"checkpoint": {"format": "full"}}), "checkpoint.format"),
    ("fsdp2-size-wrap-containers", merge(F2, {"wrapping": {"policy": "size"}}),
     merge(F1, {"wrapping": {"policy": "size"}}), "wrapping.policy"),
    ("wrap-classes-unused", {"wrapping": {"policy": "none", "layer_classes": ["Block"]}},
     {"wrapping": {"policy": "transformer", "layer_classes": ["Block"]}}, "wrapping.layer_classes"),
    ("ds-auto-clipping", merge(DS, {"training": {"gradient_clipping": "auto"}, "deepspeed": {"config_file": "yes"}}),
     merge(DS, {"training": {"gradient_clipping": 1.0}, "deepspeed": {"config_file": "yes"}}),
     "training.gradient_clipping"),
    ("fsdp-training-in-script", {"training": {"gradient_accumulation_steps": 4}},
     merge(DS, {"training": {"gradient_accumulation_steps": 4}}), "training.gradient_accumulation_steps"),
    ("fp8-needs-backend", {"precision": {"mixed_precision": "fp8"}}, {"precision": {"mixed_precision": "bf16"}},
     "precision.mixed_precision"),
    ("fp8-options-unused", {"precision": {"mixed_precision": "fp8", "fp8_backend": "te", "fp8_opt_level": "O1"}},
     {"precision": {"mixed_precision": "fp8", "fp8_backend": "te", "fp8_margin": 2}}, "precision.fp8_opt_level"),
    ("fp8-auto-backend-fsdp", {"precision": {"mixed_precision": "fp8"}},
     {"precision": {"mixed_precision": "fp8", "fp8_backend": "te"}}, "precision.fp8_backend"),
    ("fp8-ds-json",
     merge(DS, {"precision": {"mixed_precision": "fp8"}, "offload": {"pin_memory": False, "optimizer": "cpu"}}),
     merge(DS, {"precision": {"mixed_precision": "fp8"}}), "precision.mixed_precision"),
    ("ds-json-required", merge(DS, {"deepspeed": {"config_file": "no"}, "training": {"micro_batch_size": 4}}),
     merge(DS, {"training": {"micro_batch_size": 4}}), "deepspeed.config_file"),
    ("low-precision-optimizer", {"precision": {"model_dtype": "bf16", "mixed_precision": "no"}},
     {"precision": {"model_dtype": "bf16", "mixed_precision": "bf16"}}, "precision.mixed_precision"),
    ("ds-low-precision-no-mp", merge(DS, {"precision": {"model_dtype": "bf16", "mixed_precision": "no"}}),
     merge(DS, {"precision": {"model_dtype": "bf16"}}), "precision.mixed_precision"),
    ("ds-json-overrides-mixed-precision",
     merge(DS, {"precision": {"mixed_precision": "bf16"}, "deepspeed": {"extra": {"bf16": {"enabled": False}}}}),
     merge(DS, {"precision": {"mixed_precision": "bf16"}, "deepspeed": {"extra": {"bf16": {"enabled": True}}}}),
     "deepspeed.extra"),
    ("not-applicable", merge(F2, {"prefetch": {"backward": "post"}}), merge(F1, {"prefetch": {"backward": "post"}}),
     "prefetch.backward"),
    ("zero3-knob-unused",
     merge(DS, {"sharding": {"strategy": "grads_optimizer"}, "prefetch": {"ds_bucket_size": 5000}}),
     merge(DS, {"prefetch": {"ds_bucket_size": 5000}}), "prefetch.ds_bucket_size"),
    ("ds-multinode-keys-unused", merge(DS, {"launch": {"ds_hostfile": "/etc/hosts.ds"}}),
     merge(DS, {"launch": {"num_machines": 2, "main_process_ip": "10.0.0.1", "ds_multinode_launcher": "pdsh",
                           "ds_hostfile": "/etc/hosts.ds"}}), "launch.ds_hostfile"),
    ("pin-memory-unused", merge(DS, {"offload": {"pin_memory": False}}),
     merge(DS, {"offload": {"pin_memory": False, "optimizer": "cpu"}}), "offload.pin_memory"),
    ("min-num-params-unused", {"wrapping": {"policy": "transformer", "min_num_params": 1000}},
     {"wrapping": {"policy": "size", "min_num_params": 1000}}, "wrapping.min_num_params"),
    ("ds-bf16-master-needs-offload", merge(DS, {"precision": {"ds_bf16_master_weights": "bf16"}}),
     merge(DS, {"precision": {"ds_bf16_master_weights": "bf16"}, "offload": {"optimizer": "cpu"}}),
     "offload.optimizer"),
    ("ds-bf16-states-offload-swap", merge(DS, BF16_STATES, {"offload": {"optimizer": "cpu"}}),
     merge(DS, BF16_STATES, {"offload": {"optimizer": "cpu"},
                             "deepspeed": {"extra": {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}}}),
     "offload.optimizer"),
    ("ds-bf16-master-without-bf16", merge(DS, BF16_STATES, {"precision": {"mixed_precision": "no"}}),
     merge(DS, BF16_STATES), "precision.mixed_precision"),
    ("parallelism-details-unused", merge(DS, {"parallelism": {"sp_attn_implementation": "flash_attention_2"}}),
     merge(DS, {"parallelism": {"sp_size": 2, "sp_attn_implementation": "flash_attention_2"}}),
     "parallelism.sp_attn_implementation"),
    ("ds-json-overrides-stage", merge(DS, {"deepspeed": {"extra": {"zero_optimization": {"stage": 1}}}}),
     merge(DS, {"sharding": {"strategy": "optimizer"}, "deepspeed": {"extra": {"zero_optimization": {"stage": 1}}}}),
     "deepspeed.extra"),
]


@pytest.mark.parametrize("rule,bad,good,key", CASES, ids=[c[0] for c in CASES])
def test_rule_fires_and_is_fixable(rule, bad, good, key):
    hits = [f for f in check_answers(A(bad)) if f.rule == rule]
    assert hits, f"{rule} did not fire"
    assert any(key in f.keys for f in hits), hits
    assert all(f.fix and f.source for f in hits)
    assert not [f for f in check_answers(A(good)) if f.rule == rule]


def test_every_rule_is_exercised():
    assert set(ANSWER_RULES) == {c[0] for c in CASES}


def test_presets_have_no_answer_errors():
    from wizard.core.answers import parse_answers_text

    for p in PRESET_FILES:
        a, _ = parse_answers_text(p.read_text())
        errors = [f for f in check_answers(a) if f.severity == "error"]
        assert not errors, (p.name, errors)


def test_each_rule_reports_its_registered_severity():
    """One severity per rule: a value-dependent severity is two rules."""
    for _rule, bad, _good, _key in CASES:
        for f in check_answers(A(bad)):
            assert f.severity == ANSWER_RULES[f.rule].severity, f.rule


@pytest.mark.parametrize("rule,doc,want", [
    ("multinode-needs-main-ip", {"launch": {"num_processes": 16, "num_machines": 2}},
     {"launch.main_process_ip", "launch.num_machines"}),
    ("ds-bf16-master-needs-offload", merge(DS, {"precision": {"ds_bf16_master_weights": "bf16"}}),
     {"precision.ds_bf16_master_weights", "offload.optimizer"}),
    ("ds-bf16-states-offload-swap", merge(DS, BF16_STATES, {"offload": {"optimizer": "cpu"}}),
     {"precision.ds_bf16_master_weights", "offload.optimizer", "deepspeed.extra"}),
    ("ds-bf16-master-without-bf16", merge(DS, BF16_STATES, {"precision": {"mixed_precision": "fp16"}}),
     {"precision.ds_bf16_master_weights", "precision.mixed_precision"}),
    ("ds-json-overrides-mixed-precision",
     merge(DS, {"precision": {"mixed_precision": "no"}, "deepspeed": {"extra": {"bf16": {"enabled": True}}}}),
     {"precision.mixed_precision", "deepspeed.extra"}),
    ("ds-extra-overrides-training",
     merge(DS, {"training": {"gradient_clipping": 0.7}, "deepspeed": {"extra": {"gradient_clipping": 0.5}}}),
     {"training.gradient_clipping", "deepspeed.extra"}),
    ("trainer-tool-unused", {"launch": {"trainer_tool": "axolotl"}}, {"launch.trainer_tool", "launch.training_loop"}),
    ("ds-json-overrides-stage",  # the default strategy is full: ZeRO-3's zero3_init_flag and gather are written
     merge(DS, {"checkpoint": {"format": "full"}, "deepspeed": {"extra": {"zero_optimization": {"stage": 2}}}}),
     {"sharding.strategy", "deepspeed.extra", "loading.ram_efficient", "checkpoint.format"}),
])
def test_multi_setting_faults_name_every_key(rule, doc, want):
    hits = [f for f in check_answers(A(doc)) if f.rule == rule]
    assert hits and any(set(f.keys) == want for f in hits), hits


def test_written_configs_carry_no_dead_value_errors():
    """What the wizard writes from answers it calls good passes its own linter (where an answer rule lets a value
    through, the written config carries no dead value)."""
    from wizard.core.answers.render import render
    from wizard.core.lint import lint

    for rule, _bad, good, _key in CASES:
        a = A(good)
        if any(f.severity == "error" for f in check_answers(a)):
            continue
        out = render(a)
        errs = [f for f in lint(out.accelerate, out.deepspeed, gpus_per_node=None, fp8_available=lambda: True)
                if f.severity == "error"]
        assert not errs, (rule, [f.render() for f in errs])


def test_torch_compile_on_deepspeed_names_every_stated_dynamo_option():
    a = A(merge(DS, {"launch": {"dynamo_backend": "inductor", "dynamo_mode": "max-autotune", "dynamo_regional": True}}))
    (f,) = [f for f in check_answers(a) if f.rule == "ds-compile-not-passed"]
    assert list(f.keys) == ["launch.dynamo_backend", "launch.dynamo_mode", "launch.dynamo_regional"]
    assert "launch.dynamo_mode, launch.dynamo_regional with it" in f.message
    (plain,) = [f for f in check_answers(A(merge(DS, {"launch": {"dynamo_backend": "inductor"}})))
                if f.rule == "ds-compile-not-passed"]
    assert list(plain.keys) == ["launch.dynamo_backend"]


def test_zero3_with_ram_efficient_false_writes_no_init_flag():
    """zero3_init_flag: false would not stop zero.Init (claim ds-zero3-init-flag-does-not-stop-zero-init): at ZeRO-3
    the wizard writes true (what happens anyway) for loading.ram_efficient false, and passes its own linter."""
    from wizard.core.answers.render import render
    from wizard.core.lint import lint

    out = render(A(merge(DS, {"loading": {"ram_efficient": False}})))
    assert out.accelerate["deepspeed_config"]["zero3_init_flag"] is True
    assert not [f for f in lint(out.accelerate, out.deepspeed, gpus_per_node=None) if f.severity == "error"]
    zero2 = render(A(merge(DS, {"sharding": {"strategy": "grads_optimizer"}, "loading": {"ram_efficient": False}})))
    assert zero2.accelerate["deepspeed_config"]["zero3_init_flag"] is False


@pytest.mark.parametrize("extra", [{}, {"training": {"gradient_accumulation_steps": 4}},
                                   {"offload": {"nvme_path": "/n", "params": "nvme"}},
                                   {"deepspeed": {"config_file": "yes"}}])
def test_the_wizard_always_writes_gradient_accumulation_into_its_deepspeed_json(extra):
    """A DeepSpeed JSON without the key forces 1 (claim ds-json-without-gradient-accumulation-is-1); the wizard's
    JSON always carries it, so rule deepspeed-json-no-gradient-accumulation never fires on what it writes."""
    from wizard.core.answers.render import render
    from wizard.core.lint import lint

    out = render(A(merge(DS, {"deepspeed": {"config_file": "yes"}}, extra)))
    assert out.deepspeed is not None and "gradient_accumulation_steps" in out.deepspeed
    findings = lint(out.accelerate, out.deepspeed, gpus_per_node=None)
    assert "deepspeed-json-no-gradient-accumulation" not in {f.rule for f in findings}


def _fired(doc, rule):
    return [f for f in check_answers(A(doc)) if f.rule == rule]


@pytest.mark.parametrize("launcher,fires", [("standard", True), ("nossh", True), ("pdsh", False), ("slurm", False)])
def test_no_main_ip_is_only_an_error_where_nothing_finds_the_master(launcher, fires):
    """DeepSpeed's runner asks the hostfile's first host for its address over ssh (claim
    ds-runner-finds-master-addr): pdsh, MPI and Slurm launches need no main_process_ip; torchrun and nossh do."""
    doc = merge(DS, {"launch": {"num_processes": 16, "num_machines": 2, "ds_multinode_launcher": launcher,
                                "ds_hostfile": "/h"}})
    assert bool(_fired(doc, "multinode-needs-main-ip")) is fires


# ------------------------------------------------------------------ rules that follow launch.training_loop


def _one(doc, rule):
    hits = [f for f in check_answers(A(doc)) if f.rule == rule]
    assert len(hits) == 1, hits
    return hits[0]


def test_auto_clipping_says_who_fills_it():
    doc = merge(DS, {"training": {"gradient_clipping": "auto"}, "deepspeed": {"config_file": "yes"}})
    own = _one(doc, "ds-auto-clipping")
    hf = _one(merge(doc, TRAINER), "ds-auto-clipping")
    assert "1.0" in own.message and "max_grad_norm" not in own.message
    assert "max_grad_norm" in hf.message and "launch.training_loop" in hf.keys


def test_fsdp_training_answers_go_to_training_arguments_under_the_trainer():
    doc = {"training": {"gradient_accumulation_steps": 4}}
    own = _one(doc, "fsdp-training-in-script")
    hf = _one(merge(doc, TRAINER), "fsdp-training-in-script")
    assert "Accelerator(gradient_accumulation_steps" in own.message
    assert "training_arguments.json" in hf.message and hf.keys[-1] == "launch.training_loop"


@pytest.mark.parametrize("loop,error", [("trainer", True), ("accelerate", False)])
def test_two_learning_rates_are_an_error_only_under_the_trainer(loop, error):
    """One fact, one place: the config rule on the written JSON reports it, blamed on the answers' keys."""
    from wizard.core.answers.generate import answer_findings

    doc = merge(DS, {"launch": {"training_loop": loop},
                     "deepspeed": {"extra": {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
                                             "scheduler": {"type": "WarmupLR", "params": {"warmup_max_lr": 2e-4}}}}})
    found = [f for f in answer_findings(A(doc)) if f.rule == "ds-json-trainer-lr-conflict"]
    assert bool(found) is error
    if error:
        assert found[0].severity == "error" and set(found[0].keys) >= {"deepspeed.extra", "launch.training_loop"}


def test_a_host_listed_twice_is_an_error_only_where_deepspeeds_runner_reads_a_hostfile():
    twice = {"launch": {"hosts": ["a", "a"]}}
    runner = A(merge(DS, TWO, {"launch": {"ds_multinode_launcher": "pdsh", "ds_hostfile": "/h"}}, twice))
    found = [f for f in check_answers(runner) if f.rule == "hosts-invalid"]
    assert len(found) == 1 and found[0].severity == "error" and "twice" in found[0].message
    assert set(found[0].keys) == {"launch.hosts", "launch.ds_multinode_launcher"}
    torchrun = A(merge(F2, TWO, twice))  # two launchers on one host: odd, but torchrun does not refuse it
    assert not [f for f in check_answers(torchrun) if f.rule == "hosts-invalid"]
