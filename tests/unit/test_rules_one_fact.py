"""One rule per fact: no answer rule restates a config rule.

``generate`` lints the config it writes from the answers and blames the answers behind each key, so a fault the
written files show is the config rule's, for the wizard and for ``check`` alike. An answer rule is left for what the
written files cannot show: a value written other than answered, or not written at all.

``SHARED`` lists the answer rules that still cite a claim some config rule cites, each with the reason it stays.
The list may only shrink: a new answer rule that cites a config rule's claim fails here, and so does an entry that
no longer shares its claims (whoever removes a duplicate deletes its line). ``RESTATED`` holds the answer rules that
were removed because a config rule says the same of the written files: each case shows that the finding still
appears on the answers (through ``generate``, which ``--headless`` and the TUI use), at the same severity and
naming the answers the answer rule named, and that the same config written by hand triggers the same rule.
"""
from __future__ import annotations

import pytest
import yaml

import wizard.core.docs.rules  # noqa: F401 - imports every rule module, so the registry is complete
from wizard.core.answers import answers_from_mapping
from wizard.core.answers.generate import answer_findings, generate
from wizard.core.answers.rules import check_answers
from wizard.core.context import LOOP_ACCELERATE, LOOP_HF, Context
from wizard.core.lint import lint
from wizard.core.rules import ANSWER, CONFIG, RULES, in_section

WRITTEN_OTHERWISE = "written other than answered: the written file is clean, only the answers show it"
NOT_WRITTEN = "not written at all: the written file has nothing a config rule could see"

SHARED: dict[str, tuple[frozenset[str], str]] = {
    "hosts-count": (frozenset({"ds-hostfile-every-host-used"}),
                    "launch.hosts goes to the hostfile and the per-machine commands the wizard writes, which the "
                    "config linter does not read"),
    "hosts-invalid": (frozenset({"ds-hostfile-bad-lines-raise"}),
                      "launch.hosts goes to the hostfile the wizard writes, which the config linter does not read"),
    "ds-compile-not-passed": (frozenset({"dynamo-not-exported-under-deepspeed", "dynamo-deepspeed-engine-compile"}),
                              NOT_WRITTEN + " (no dynamo_config for DeepSpeed)"),
    "ds-multinode-keys-unused": (frozenset({"ds-multinode-runner-or-torchrun"}), NOT_WRITTEN),
    "sharding-no-fsdp-twin": (frozenset({"fsdp-reshard-after-forward"}),
                              WRITTEN_OTHERWISE + " (ZeRO-1 as SHARD_GRAD_OP, FSDP2 none as reshard false)"),
    "sharding-no-deepspeed-twin": (frozenset({"ds-hpz-secondary-partition"}),
                                   WRITTEN_OTHERWISE + " (HYBRID_SHARD_ZERO2 as plain ZeRO-2)"),
    "hybrid-single-machine": (frozenset({"fsdp2-hybrid-from-parallelism-config", "ds-hpz-secondary-partition"}),
                              WRITTEN_OTHERWISE + " (FSDP2 and DeepSpeed write no hybrid keys on one machine; FSDP1 "
                              "is left to fsdp1-hybrid-shard-single-node)"),
    "hybrid-fsdp1-group-size": (frozenset({"fsdp1-hybrid-groups-by-visible-devices"}),
                                "a note on how to launch: the config rule fires only on a mismatch the file shows"),
    "fsdp-offload-all-or-nothing": (frozenset({"fsdp-offload-single-switch"}),
                                    WRITTEN_OTHERWISE + " (one offload answer, or nvme, as fsdp_offload_params)"),
    "ds-param-offload-needs-zero3": (frozenset({"ds-param-offload-zero3-only"}), NOT_WRITTEN),
    "ds-nvme-needs-zero3": (frozenset({"ds-nvme-optimizer-offload-below-zero3-is-cpu"}),
                            WRITTEN_OTHERWISE + " (nvme below ZeRO-3 as cpu)"),
    "ds-offload-needs-zero": (frozenset({"ds-offload-optimizer-stage0-asserts"}), NOT_WRITTEN),
    "zero3-init-needs-zero3": (frozenset({"ds-zero3-init-flag-off-below-zero3"}),
                               WRITTEN_OTHERWISE + " (zero3_init_flag false below ZeRO-3)"),
    "ds-zero3-init-cannot-be-off": (frozenset({"ds-zero3-init-flag-does-not-stop-zero-init",
                                               "ds-zero3-init-needs-config-before-load"}),
                                    WRITTEN_OTHERWISE + " (zero3_init_flag true at ZeRO-3)"),
    "fsdp2-no-local-state-dict": (frozenset({"fsdp-state-dict-type-defaults"}),
                                  WRITTEN_OTHERWISE + " (local as SHARDED_STATE_DICT)"),
    "wrap-classes-unused": (frozenset({"fsdp-transformer-layer-classes"}), NOT_WRITTEN),
    "min-num-params-unused": (frozenset({"fsdp-min-num-params-size-policy-only"}), NOT_WRITTEN),
    "ds-auto-clipping": (frozenset({"ds-gradient-clipping-on-unless-json-zero",
                                    "trainer-ds-values-must-match-arguments"}),
                         "\"auto\" in a JSON or under the Trainer is fine as written and no config rule notes who "
                         "fills it (inline in an own loop it is left to deepspeed-no-gradient-clipping)"),
    "fp8-options-unused": (frozenset({"fp8-recipe-reads-launch-env"}),
                           NOT_WRITTEN + " (an option of a backend that does not run, or any option without fp8, is "
                           "not written; the config rules fp8-option-other-backend / -without-backend see files "
                           "written otherwise)"),
    "fp8-auto-backend-fsdp": (frozenset({"fp8-auto-detect-order"}),
                              NOT_WRITTEN + " (with the backend left to auto-detection no fp8_config is written; the "
                              "config rule fp8-option-without-backend needs options written without a backend)"),
    "fp8-ds-json": (frozenset({"ds-file-refuses-yaml-mixed-precision", "ds-json-owns-its-keys"}),
                    NOT_WRITTEN + " (no mixed_precision fp8 next to a DeepSpeed JSON)"),
    "ds-json-required": (frozenset({"ds-inline-unknown-dropped", "ds-inline-nvme-path-not-exported",
                                    "ds-gradient-clipping-on-unless-json-zero",
                                    "ds-micro-batch-auto-from-dataloader"}),
                         NOT_WRITTEN + " (the settings that need a JSON are dropped inline)"),
    "ds-json-overrides-mixed-precision": (frozenset({"ds-mixed-precision-to-json"}),
                                          "the renderer merges deepspeed.extra over the answer: the written JSON "
                                          "is consistent, only the answers show the override"),
}
"""Answer rule -> the config rules' claims it still cites, and why it stays. May only shrink."""


def shared_claims() -> dict[str, frozenset[str]]:
    """Answer rule -> the claims it cites that some config rule cites too (only rules that share any)."""
    config_claims = {c for info in in_section(CONFIG).values() for c in info.claims}
    out = {}
    for name, info in in_section(ANSWER).items():
        common = frozenset(info.claims) & config_claims
        if common:
            out[name] = common
    return out


def test_no_answer_rule_cites_a_config_rules_claim_except_the_listed_ones():
    shared = shared_claims()
    new = {name: sorted(claims - SHARED.get(name, (frozenset(), ""))[0]) for name, claims in shared.items()}
    new = {name: claims for name, claims in new.items() if claims}
    assert not new, ("answer rules that cite a config rule's claim: say it once, in the config rule (generate "
                     f"reports it against the answers); the list below may only shrink: {new}")


def test_the_list_only_shrinks():
    """An entry that no longer shares (some of) its claims must go (or lose those claims)."""
    shared = shared_claims()
    stale = {name: sorted(claims - shared.get(name, frozenset())) for name, (claims, _why) in SHARED.items()}
    stale = {name: claims for name, claims in stale.items() if claims}
    assert not stale, f"delete these from SHARED, they no longer share the claims: {stale}"
    assert all(why.strip() for _claims, why in SHARED.values())


# ------------------------------------------------------------------ restated answer rules, now the config rules'

DS = {"backend": "deepspeed"}
F1 = {"backend": "fsdp", "fsdp_version": 1}
F2 = {"backend": "fsdp", "fsdp_version": 2}
TWO = {"num_processes": 16, "num_machines": 2, "main_process_ip": "10.0.0.1"}
TRAINER = {"training_loop": "trainer"}

HEAD = """compute_environment: LOCAL_MACHINE
machine_rank: 0
num_machines: 1
num_processes: 8
"""
FSDP1_YAML = HEAD + """distributed_type: FSDP
fsdp_config:
  fsdp_version: 1
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer
  fsdp_sharding_strategy: FULL_SHARD
  fsdp_use_orig_params: true
  fsdp_sync_module_states: true
"""
FSDP2_YAML = HEAD + """distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer
  fsdp_reshard_after_forward: true
"""
DS_YAML = HEAD + """distributed_type: DEEPSPEED
deepspeed_config:
  zero_stage: 2
  gradient_accumulation_steps: 1
  gradient_clipping: 1.0
  offload_optimizer_device: none
  offload_param_device: none
"""
DS_FILE_YAML = HEAD + """distributed_type: DEEPSPEED
deepspeed_config:
  deepspeed_config_file: ds_config.json
"""


def _ds_json(zero: dict, **top) -> dict:
    return {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 1,
            "gradient_clipping": 1.0, "zero_optimization": zero, **top}


def _with(text: str, **changes) -> dict:
    """A config written by hand: ``text`` with top-level keys (or ``section={key: value}``) changed."""
    out = yaml.safe_load(text)
    for key, value in changes.items():
        if isinstance(value, dict):
            out.setdefault(key, {}).update(value)
        else:
            out[key] = value
    return out


# removed answer rule, the config rule that says it, answers that triggered the answer rule, the answer ids the
# answer rule named, the same fault written by hand (YAML, DeepSpeed JSON or None), and the loop
RESTATED = [
    ("processes-not-divisible", "num-processes-not-divisible", {"launch": {**TWO, "num_processes": 15}},
     {"launch.num_processes", "launch.num_machines"},
     _with(FSDP2_YAML, num_machines=2, num_processes=15, main_process_ip="10.0.0.1", main_process_port=29500), None,
     LOOP_ACCELERATE),
    ("rdzv-backend-config-ignored", "rdzv-backend-not-applied", {"launch": {**TWO, "rdzv_backend": "c10d"}},
     {"launch.rdzv_backend"}, _with(FSDP2_YAML, rdzv_backend="c10d"), None, LOOP_ACCELERATE),
    ("machine-rank-out-of-range", "machine-rank-too-high", {"launch": {**TWO, "machine_rank": 2}},
     {"launch.machine_rank", "launch.num_machines"},
     _with(FSDP2_YAML, num_machines=2, num_processes=16, machine_rank=2, main_process_ip="10.0.0.1",
           main_process_port=29500), None, LOOP_ACCELERATE),
    ("machine-rank-out-of-range", "machine-rank-too-high",
     {**DS, "launch": {**TWO, "machine_rank": 2, "ds_multinode_launcher": "nossh", "ds_hostfile": "/h"}},
     {"launch.machine_rank", "launch.num_machines", "launch.ds_multinode_launcher"},
     _with(DS_YAML, num_machines=2, num_processes=16, machine_rank=2, main_process_ip="10.0.0.1",
           main_process_port=29500, deepspeed_config={"deepspeed_multinode_launcher": "nossh",
                                                      "deepspeed_hostfile": "/h"}), None, LOOP_ACCELERATE),
    ("machine-rank-unused", "machine-rank-not-read", {"launch": {"machine_rank": 1}},
     {"launch.machine_rank", "launch.num_machines"}, _with(FSDP2_YAML, machine_rank=1), None, LOOP_ACCELERATE),
    ("machine-rank-unused", "machine-rank-not-read",
     {**DS, "launch": {**TWO, "ds_multinode_launcher": "pdsh", "ds_hostfile": "/h", "machine_rank": 1}},
     {"launch.machine_rank", "launch.num_machines", "launch.ds_multinode_launcher"},
     _with(DS_YAML, num_machines=2, num_processes=16, machine_rank=1, main_process_ip="10.0.0.1",
           main_process_port=29500, deepspeed_config={"deepspeed_multinode_launcher": "pdsh",
                                                      "deepspeed_hostfile": "/h"}), None, LOOP_ACCELERATE),
    ("ds-hostfile-missing", "deepspeed-multinode-no-hostfile",
     {**DS, "launch": {**TWO, "ds_multinode_launcher": "pdsh"}},
     {"launch.ds_hostfile", "launch.ds_multinode_launcher", "launch.num_machines"},
     _with(DS_YAML, num_machines=2, num_processes=16, main_process_ip="10.0.0.1", main_process_port=29500,
           deepspeed_config={"deepspeed_multinode_launcher": "pdsh"}), None, LOOP_ACCELERATE),
    ("ds-filters-both-set", "deepspeed-multinode-filter-ignored",
     {**DS, "launch": {**TWO, "ds_multinode_launcher": "pdsh", "ds_hostfile": "/h", "ds_inclusion_filter": "w0",
                       "ds_exclusion_filter": "w1"}},
     {"launch.ds_inclusion_filter", "launch.ds_exclusion_filter"},
     _with(DS_YAML, num_machines=2, num_processes=16, main_process_ip="10.0.0.1", main_process_port=29500,
           deepspeed_config={"deepspeed_multinode_launcher": "pdsh", "deepspeed_hostfile": "/h",
                             "deepspeed_inclusion_filter": "w0", "deepspeed_exclusion_filter": "w1"}),
     None, LOOP_ACCELERATE),
    ("gpu-ids-fewer-than-processes", "gpu-ids-too-few", {"launch": {"num_processes": 4, "gpu_ids": "0,1"}},
     {"launch.gpu_ids", "launch.num_processes"}, _with(FSDP2_YAML, num_processes=4, gpu_ids="0,1"), None,
     LOOP_ACCELERATE),
    ("gpu-ids-fewer-than-processes", "gpu-ids-too-few", {"launch": {**TWO, "gpu_ids": "0"}},
     {"launch.gpu_ids", "launch.num_processes", "launch.num_machines"},
     _with(FSDP2_YAML, num_machines=2, num_processes=16, gpu_ids="0", main_process_ip="10.0.0.1",
           main_process_port=29500), None, LOOP_ACCELERATE),
    ("hybrid-fsdp2-needs-shard-group", "parallelism-fsdp2-no-shard-dim",
     {**F2, "launch": {"num_processes": 2, "num_machines": 2, "main_process_ip": "h"},
      "sharding": {"strategy": "hybrid_full"}},
     {"sharding.strategy", "launch.num_processes", "launch.num_machines"},
     _with(FSDP2_YAML, num_machines=2, num_processes=2, main_process_ip="h", main_process_port=29500,
           parallelism_config={"parallelism_config_dp_replicate_size": 2, "parallelism_config_dp_shard_size": 1}),
     None, LOOP_ACCELERATE),
    ("ram-efficient-needs-sync", "fsdp-ram-efficient-loading-needs-sync", {**F1, "sync": {"module_states": False}},
     {"sync.module_states", "loading.ram_efficient"},
     _with(FSDP1_YAML, fsdp_config={"fsdp_sync_module_states": False, "fsdp_cpu_ram_efficient_loading": True}),
     None, LOOP_ACCELERATE),
    ("compile-needs-orig-params", "fsdp1-compile-without-orig-params",
     {**F1, "launch": {"dynamo_backend": "inductor"}, "summoning": {"use_orig_params": False}},
     {"summoning.use_orig_params", "launch.dynamo_backend"},
     _with(FSDP1_YAML, fsdp_config={"fsdp_use_orig_params": False}, dynamo_config={"dynamo_backend": "INDUCTOR"}),
     None, LOOP_ACCELERATE),
    ("transformer-wrap-without-classes", "fsdp-transformer-wrap-no-classes", F2, {"wrapping.layer_classes"},
     _with(FSDP2_YAML.replace("  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer\n", "")), None,
     LOOP_ACCELERATE),
    ("fsdp2-ac-needs-wrap-policy", "fsdp2-activation-checkpointing-without-wrap-policy",
     {**F2, "training": {"activation_checkpointing": True}, "wrapping": {"policy": "none"}},
     {"training.activation_checkpointing", "wrapping.policy", "fsdp_version"},
     _with(FSDP2_YAML.replace("  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer\n", ""),
           fsdp_config={"fsdp_auto_wrap_policy": "NO_WRAP", "fsdp_activation_checkpointing": True}), None,
     LOOP_ACCELERATE),
    ("ac-offload-needs-ac", "fsdp-activation-checkpointing-offload-requirements",
     {**F2, "training": {"activation_checkpointing_offload": True}},
     {"training.activation_checkpointing_offload", "training.activation_checkpointing"},
     _with(FSDP2_YAML, fsdp_config={"fsdp_activation_checkpointing_offload": True}), None, LOOP_ACCELERATE),
    ("nvme-needs-path", "ds-json-nvme-path-missing", {**DS, "offload": {"params": "nvme"}}, {"offload.nvme_path"},
     _with(DS_FILE_YAML), _ds_json({"stage": 3, "offload_param": {"device": "nvme"}}), LOOP_ACCELERATE),
    ("ds-offload-optimizer-becomes-adam", "deepspeed-offload-optimizer-becomes-adam",
     {**DS, "offload": {"optimizer": "cpu"}}, {"offload.optimizer"},
     _with(DS_YAML, deepspeed_config={"offload_optimizer_device": "cpu"}), None, LOOP_ACCELERATE),
    ("ds-offload-optimizer-becomes-adam", "deepspeed-offload-optimizer-becomes-adam",
     {**DS, "launch": TRAINER, "offload": {"optimizer": "cpu"}}, {"offload.optimizer", "launch.training_loop"},
     _with(DS_YAML, deepspeed_config={"offload_optimizer_device": "cpu"}), None, LOOP_HF),
    ("ds-bf16-master-needs-zero", "ds-json-master-weights-invalid",
     {**DS, "precision": {"ds_bf16_master_weights": "bf16_with_states"}, "sharding": {"strategy": "none"}},
     {"precision.ds_bf16_master_weights", "sharding.strategy"},
     _with(DS_FILE_YAML), _ds_json({"stage": 0}, bf16={"enabled": True, "bf16_master_weights_and_grads": True,
                                                       "bf16_optimizer_states": True}), LOOP_ACCELERATE),
]
REMOVED = sorted({case[0] for case in RESTATED})
"""The answer rule ids that disappeared: their config rules say the same of the written files."""


def _answers(doc):
    a, findings = answers_from_mapping(doc)
    assert a is not None, findings
    return a


@pytest.mark.parametrize("removed,rule,doc,ids,hand_yaml,hand_json,loop", RESTATED,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(RESTATED)])
def test_a_restated_fault_is_the_config_rules_on_the_answers_and_by_hand(removed, rule, doc, ids, hand_yaml,
                                                                          hand_json, loop):
    assert removed not in RULES, f"{removed} is back: {rule} says it of the written files"
    severity = RULES[rule].severity
    answers = _answers(doc)
    found = [f for f in generate(answers).findings if f.rule == rule]
    assert found, f"{rule} no longer reports what {removed} said"
    assert all(f.severity == severity for f in found)
    assert any(ids <= set(f.keys) for f in found), (ids, [f.keys for f in found])
    assert [f.rule for f in answer_findings(answers)].count(rule) == len(found)
    by_hand = lint(hand_yaml, hand_json, gpus_per_node=None, context=Context(loop=loop, loop_source="test"))
    assert rule in {f.rule for f in by_hand}, [f.render() for f in by_hand]


def test_each_removed_rules_config_rule_keeps_its_severity():
    """The config rules that took over: the same severity as the answer rules had (errors stay errors)."""
    was = {"processes-not-divisible": "error", "rdzv-backend-config-ignored": "error",
           "machine-rank-out-of-range": "error", "machine-rank-unused": "warning", "ds-hostfile-missing": "error",
           "ds-filters-both-set": "error", "gpu-ids-fewer-than-processes": "error",
           "hybrid-fsdp2-needs-shard-group": "error", "ram-efficient-needs-sync": "error",
           "compile-needs-orig-params": "error", "transformer-wrap-without-classes": "info",
           "fsdp2-ac-needs-wrap-policy": "error", "ac-offload-needs-ac": "error", "nvme-needs-path": "error",
           "ds-offload-optimizer-becomes-adam": "info", "ds-bf16-master-needs-zero": "error"}
    assert sorted(was) == REMOVED
    for removed, rule, *_ in RESTATED:
        assert RULES[rule].severity == was[removed], (removed, rule)


def test_the_trainer_is_named_where_it_changes_what_a_config_rule_says():
    doc = {**DS, "offload": {"optimizer": "cpu"}}
    (own,) = [f for f in generate(_answers(doc)).findings if f.rule == "deepspeed-offload-optimizer-becomes-adam"]
    (hf,) = [f for f in generate(_answers({**doc, "launch": TRAINER})).findings
             if f.rule == "deepspeed-offload-optimizer-becomes-adam"]
    assert own.keys == ("offload.optimizer",) and "script" in own.message
    assert hf.keys == ("offload.optimizer", "launch.training_loop") and "TrainingArguments.optim" in hf.message
    # the same config written by hand, checked for the Trainer, says the same
    y = _with(DS_YAML, deepspeed_config={"offload_optimizer_device": "cpu"})
    (by_hand,) = [f for f in lint(y, None, gpus_per_node=None, context=Context(loop=LOOP_HF, loop_source="test"))
                  if f.rule == "deepspeed-offload-optimizer-becomes-adam"]
    assert "TrainingArguments.optim" in by_hand.message


def test_an_optimizer_block_swaps_nothing_in_either_loop():
    block = {"deepspeed": {"extra": {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}}}
    for loop in ({}, {"launch": TRAINER}):
        answers = _answers({**DS, **loop, "offload": {"optimizer": "cpu"}, **block})
        assert "deepspeed-offload-optimizer-becomes-adam" not in {f.rule for f in generate(answers).findings}


def test_gpu_ids_are_not_checked_where_the_deepspeed_runner_replaces_them():
    """On the runner's path each node's launch sets CUDA_VISIBLE_DEVICES from the hostfile slots (claim
    ds-runner-sets-visible-devices), so a short gpu_ids list makes no rank fail there."""
    short = {"num_processes": 8, "num_machines": 2, "main_process_ip": "h", "gpu_ids": "0"}

    def rules(doc):
        return {f.rule for f in generate(_answers(doc)).findings}

    assert "gpu-ids-too-few" not in rules({**DS, "launch": {**short, "ds_multinode_launcher": "pdsh",
                                                            "ds_hostfile": "/h"}})
    assert "gpu-ids-too-few" in rules({**DS, "launch": {**short, "ds_multinode_launcher": "standard"}})
    assert "gpu-ids-too-few" in rules({**F2, "launch": short})


@pytest.mark.parametrize("launcher", ["pdsh", "openmpi", "mvapich", "mpich", "slurm"])
def test_machine_rank_is_no_error_where_the_runner_starts_every_machine(launcher):
    """The runner's launchers never pass machine_rank: out of range there is a warning, not an error (nossh and
    standard pass it, so out of range stays an error)."""
    def found(launch):
        doc = {**DS, "launch": {**TWO, "ds_hostfile": "/h", "machine_rank": 5, **launch}}
        return {f.rule: f.severity for f in generate(_answers(doc)).findings}

    got = found({"ds_multinode_launcher": launcher})
    assert "machine-rank-too-high" not in got and got["machine-rank-not-read"] == "warning"
    for passed in ("nossh", "standard"):
        assert found({"ds_multinode_launcher": passed}).get("machine-rank-too-high") == "error"


def test_hybrid_on_one_machine_is_said_once():
    """FSDP1 writes HYBRID_SHARD as answered: the config rule says it; FSDP2 and DeepSpeed write plain sharding on
    one machine, so the answer rule does."""
    def rules(doc):
        return [f.rule for f in generate(_answers(doc)).findings]

    fsdp1 = rules({**F1, "sharding": {"strategy": "hybrid_full"}})
    assert fsdp1.count("fsdp1-hybrid-shard-single-node") == 1 and "hybrid-single-machine" not in fsdp1
    for target in (F2, DS):
        got = rules({**target, "sharding": {"strategy": "hybrid_full"}})
        assert got.count("hybrid-single-machine") == 1 and "fsdp1-hybrid-shard-single-node" not in got


def test_auto_clipping_is_said_once():
    """Inline in an own loop, the config rule says what a left-out clipping key means; in a JSON or under the
    Trainer the answer rule says who fills "auto"."""
    clip = {"training": {"gradient_clipping": "auto"}}
    inline = _answers({**DS, **clip})
    assert "ds-auto-clipping" not in {f.rule for f in check_answers(inline)}
    assert "deepspeed-no-gradient-clipping" in {f.rule for f in generate(inline).findings}
    in_json = _answers({**DS, **clip, "deepspeed": {"config_file": "yes"}})
    assert [f.rule for f in generate(in_json).findings].count("ds-auto-clipping") == 1
    trainer = _answers({**DS, **clip, "launch": TRAINER})
    (hf,) = [f for f in generate(trainer).findings if f.rule == "ds-auto-clipping"]
    assert "max_grad_norm" in hf.message and "launch.training_loop" in hf.keys


def test_two_faults_that_share_a_setting_are_both_reported():
    """A config finding is dropped only when an answer finding names every answer it blames: two machines without
    a main address (answer rule) and 3 processes over them (config rule) are two faults."""
    answers = _answers({"launch": {"num_machines": 2, "num_processes": 3}})
    rules = {f.rule: f.severity for f in generate(answers).findings}
    assert rules["multinode-needs-main-ip"] == "error" and rules["num-processes-not-divisible"] == "error"


def test_every_finding_on_answers_names_answers():
    """Config findings on what the wizard writes are blamed on answer ids, also for a key inside a block one answer
    wrote (deepspeed.extra's optimizer.params.lr)."""
    from test_answer_rules import CASES

    from wizard.core.catalog import SETTING_BY_ID

    top = {"backend", "fsdp_version"}
    for _rule, bad, good, _key in CASES:
        for doc in (bad, good):
            for f in generate(_answers(doc)).findings:
                assert set(f.keys) <= set(SETTING_BY_ID) | top, (f.rule, f.keys)
