"""The library tables (wizard/core/library/) read back from the installed libraries (accelerate 1.15, DeepSpeed
0.19.8, transformers 5.24: ``wizard.core.versions.VERIFIED_AGAINST``): the launcher's argument defaults, the plugins'
defaults, DeepSpeed's ZeRO and offload defaults, the "auto" fills, and the tables accelerate states as literals in its
own code. A release that changes one of them fails here, naming the table to update."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import typing

import pytest

from wizard.core.library import auto, deepspeed, fsdp, transformers_tp

pytestmark = pytest.mark.verify


def _literal_in(function, name: str):
    """The literal a function of the library assigns to ``name`` (read from its source, as the code states it)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{function.__qualname__} no longer assigns {name}")


# ----------------------------------------------------------------------------------------------------- accelerate


def test_launch_fsdp_defaults_are_the_launchers():
    from accelerate.commands.launch import launch_command_parser

    parser = launch_command_parser()
    arguments = {a.dest: a.default for a in parser._actions if a.dest.startswith("fsdp_")}
    # every --fsdp_* argument is in the table with its default; a key without an argument (fsdp_ignored_modules is
    # copied from the YAML onto the namespace) has no launcher default: None, nothing exported
    assert {k: v for k, v in fsdp.LAUNCH_FSDP_DEFAULTS.items() if k in arguments} == arguments
    assert {k: v for k, v in fsdp.LAUNCH_FSDP_DEFAULTS.items() if k not in arguments} == {"fsdp_ignored_modules": None}
    assert set(fsdp.LAUNCH_FSDP_DEFAULTS) == fsdp.FSDP_KEYS


@pytest.mark.parametrize("version", [1, 2])
def test_fsdp_plugin_defaults(monkeypatch, version):
    from accelerate.utils import FullyShardedDataParallelPlugin

    for name in fsdp.FSDP_ENV_TO_ARG:
        monkeypatch.delenv(name, raising=False)
    plugin = FullyShardedDataParallelPlugin(fsdp_version=version)
    assert plugin.state_dict_type.name == fsdp.FSDP_STATE_DICT_DEFAULT[version]
    assert plugin.backward_prefetch == fsdp.PLUGIN_FSDP_DEFAULTS["fsdp_backward_prefetch"]
    assert plugin.auto_wrap_policy is None  # NO_WRAP: no policy
    assert fsdp.PLUGIN_FSDP_DEFAULTS["fsdp_auto_wrap_policy"] == "NO_WRAP"


def test_deepspeed_plugin_defaults(monkeypatch):
    from accelerate.utils import DeepSpeedPlugin

    for name in (*deepspeed.DS_ENV_TO_KEY, "ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_NVME_PATH",
                 "ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_NVME_PATH"):
        monkeypatch.delenv(name, raising=False)
    plugin = DeepSpeedPlugin()
    assert {k: getattr(plugin, k) for k in deepspeed.LAUNCH_DEEPSPEED_DEFAULTS} == deepspeed.LAUNCH_DEEPSPEED_DEFAULTS


def test_inline_keys_map_as_accelerate_maps_them():
    from accelerate.utils import DeepSpeedPlugin

    assert _literal_in(DeepSpeedPlugin.__post_init__, "plugin_to_config_mapping") == deepspeed.INLINE_TO_PATH


def test_the_keys_refused_next_to_a_deepspeed_json(monkeypatch):
    """What ``_deepspeed_config_checks`` refuses, asked of it key by key (it reads only the environment)."""
    from accelerate.utils import DeepSpeedPlugin

    refused = set()
    for name in sorted(deepspeed.DS_INLINE_KEYS | {"mixed_precision"}):
        monkeypatch.setenv("ACCELERATE_CONFIG_DS_FIELDS", name)
        try:
            DeepSpeedPlugin._deepspeed_config_checks(None)
        except ValueError:
            refused.add(name)
    assert refused == set(deepspeed.DS_FILE_CONFLICTING_FIELDS)


def test_the_fills_accelerate_makes():
    from accelerate import Accelerator
    from accelerate.utils import DummyOptim, DummyScheduler

    assert _literal_in(Accelerator._prepare_deepspeed, "config_kwargs") == auto.ACCELERATE_FILLS
    optim = inspect.signature(DummyOptim).parameters
    assert {"optimizer.params.lr": optim["lr"].default,
            "optimizer.params.weight_decay": optim["weight_decay"].default} == auto.DUMMY_OPTIM_FILLS
    scheduler = inspect.signature(DummyScheduler).parameters
    assert auto.DUMMY_SCHEDULER_FILLS["scheduler.params.warmup_num_steps"] == \
        max(1, scheduler["warmup_num_steps"].default)  # accelerate raises 0 to 1
    assert auto.DUMMY_SCHEDULER_FILLS["scheduler.params.warmup_max_lr"] == optim["lr"].default
    assert tuple(_literal_in(Accelerator._prepare_deepspeed, "hidden_size_based_keys")) == auto.HIDDEN_SIZE_AUTO_KEYS


# ------------------------------------------------------------------------------------------------------ DeepSpeed


def test_deepspeed_zero_defaults():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    fields = {info.alias or name: info.default for name, info in DeepSpeedZeroConfig.model_fields.items()}
    assert {k: fields[k] for k in deepspeed.DS_ZERO_DEFAULTS} == deepspeed.DS_ZERO_DEFAULTS
    assert fields["stage"] == deepspeed.DS_DEFAULT_STAGE
    for stage in (0, 1, 2, 3):
        assert DeepSpeedZeroConfig(stage=stage).overlap_comm is deepspeed.overlap_comm_default(stage)


def test_deepspeed_offload_and_clipping_defaults():
    from deepspeed.runtime import constants
    from deepspeed.runtime.zero.offload_config import (
        DeepSpeedZeroOffloadOptimizerConfig,
        DeepSpeedZeroOffloadParamConfig,
    )

    param = DeepSpeedZeroOffloadParamConfig()
    assert (param.buffer_count, param.buffer_size, param.max_in_cpu) == (
        deepspeed.DS_NVME_PARAM_BUFFER_COUNT, deepspeed.DS_NVME_PARAM_BUFFER_SIZE, deepspeed.DS_NVME_MAX_IN_CPU)
    assert DeepSpeedZeroOffloadOptimizerConfig().buffer_count == deepspeed.DS_NVME_OPTIMIZER_BUFFER_COUNT
    assert constants.GRADIENT_CLIPPING_DEFAULT == deepspeed.DS_DEFAULT_CLIPPING


# --------------------------------------------------------------------------------------------------- transformers


def test_trainer_defaults():
    from transformers import TrainingArguments

    defaults = {f.name: f.default for f in dataclasses.fields(TrainingArguments)}
    assert {k: defaults[k] for k in auto.TRAINER_DEFAULTS} == auto.TRAINER_DEFAULTS


# --------------------------------------------------------------------------------------------------- transformers
@pytest.mark.parametrize("model_type", sorted(transformers_tp.TP_PLAN))
def test_which_model_types_have_a_tensor_parallel_plan(model_type):
    from transformers import CONFIG_MAPPING

    assert bool(CONFIG_MAPPING[model_type].base_model_tp_plan) is transformers_tp.TP_PLAN[model_type], \
        f"wizard/core/library/transformers_tp.py: {model_type}'s tensor-parallel plan changed"


@pytest.mark.parametrize("model_type", ["llama", "mistral", "qwen2"])
def test_how_the_tensor_parallel_plan_splits_a_llama_style_model(model_type):
    """What the estimate splits by tp (LLAMA_TP_LAYERS): the plan of a model built from the config, as from_pretrained
    applies it (the config's base plan, the LM head's class plan, the embedding put in front by init_parallel_plans)."""
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM

    config = CONFIG_MAPPING[model_type](vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                        num_attention_heads=2, num_key_value_heads=1, tie_word_embeddings=False)
    plan = AutoModelForCausalLM.from_config(config).tp_plan
    got = {key.rsplit(".", 1)[-1]: style for key, style in plan.items()}
    assert got == transformers_tp.LLAMA_TP_LAYERS, \
        f"wizard/core/library/transformers_tp.py: {model_type}'s tensor-parallel plan changed: {plan}"


def test_accelerates_mesh_order():
    from accelerate.parallelism_config import ParallelismConfig

    from wizard.core.library.launcher import MESH_ORDER

    assert tuple(_literal_in(ParallelismConfig._get_mesh, "mesh_order")) == MESH_ORDER


def test_launch_fp8_defaults_are_the_launchers():
    """Every fp8 argument of accelerate launch and its default (all exported with mixed_precision fp8), the recipe
    fields' choices, and the auto pick's order as accelerator.py has it."""
    from accelerate.commands.launch import launch_command_parser
    from accelerate.utils.dataclasses import AmaxComputeAlgorithm, FP8Format, OptLevel

    from wizard.core.library import launcher

    args = launch_command_parser().parse_args(["train.py"])
    parsed = {k: v for k, v in vars(args).items() if k.startswith("fp8_") and k != "fp8_backend"}
    assert parsed == launcher.FP8_LAUNCH_DEFAULTS
    assert args.fp8_backend is None
    assert set(launcher.FP8_LAUNCH_DEFAULTS) | {"fp8_backend"} == set(launcher.FP8_KEYS)
    literals = {"fp8_format": FP8Format, "amax_compute_algo": AmaxComputeAlgorithm, "opt_level": OptLevel}
    assert {k: typing.get_args(v) for k, v in literals.items()} == launcher.FP8_CHOICES
    import accelerate.accelerator as acc

    source = inspect.getsource(acc.Accelerator.__init__)
    order = [source.index(f"is_{name}_available()") for name in ("torchao", "transformer_engine", "msamp")]
    assert order == sorted(order) and launcher.FP8_AUTO_ORDER == ("AO", "TE", "MSAMP")
