"""Every fp8 option the catalogue has, written by the wizard with a value other than its default, reaches the
recipe accelerate builds: the written YAML through accelerate launch (parse, validate, the environment it prepares),
then the recipe of ACCELERATE_FP8_BACKEND built from that environment. Derived from the catalogue, so a new option
is checked as soon as it is declared. No fp8 package is installed here: the launcher's and the recipes' package
checks are answered yes and torchao's config class records what it is given (the recipes read the environment first).
The claim test tests/claims/test_precision.py::test_every_fp8_option_written_reaches_its_recipe shows the same per
backend; this one walks the catalogue."""
from __future__ import annotations

import os
import sys
import types
import warnings

import pytest
import yaml

from wizard.core.answers import default_answers
from wizard.core.answers.render import render
from wizard.core.catalog import DEEPSPEED, FP8_GEMMS, FSDP2, fp8_backend_of, fp8_options

pytestmark = pytest.mark.verify

CASES = [(s, t) for s in fp8_options() for t in (FSDP2, DEEPSPEED) if s.applies_to(t)]


def _other_value(s):
    if s.kind == "bool":
        return not s.default
    if s.kind == "int":
        return int(s.default) + 2
    return next(c for c in s.choices if c != s.default)


def _launch_env(tmp_path, config: dict) -> dict[str, str]:
    import accelerate.utils.launch as ulaunch
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(config))
    args = launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
    args, defaults, from_config = _validate_launch_command(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.use_deepspeed:
            fields = list(defaults.deepspeed_config.keys()) + (["mixed_precision"] if from_config else [])
            args.deepspeed_fields_from_accelerate_config = ",".join(fields)
            _, env = ulaunch.prepare_deepspeed_cmd_env(args)
        else:
            env = ulaunch.prepare_multi_gpu_env(args)
    return {k: str(v) for k, v in env.items() if os.environ.get(k) != v}


@pytest.mark.parametrize("setting,target", CASES, ids=[f"{s.id}-{t}" for s, t in CASES])
def test_the_value_written_is_the_value_the_recipe_reads(tmp_path, monkeypatch, setting, target):
    import accelerate.utils.dataclasses as dataclasses
    import accelerate.utils.launch as ulaunch
    from accelerate.utils import AORecipeKwargs, MSAMPRecipeKwargs, TERecipeKwargs

    for key in list(os.environ):
        if key.startswith(("ACCELERATE_", "FSDP_", "PARALLELISM_CONFIG_")):
            monkeypatch.delenv(key)
    value = _other_value(setting)
    backend = fp8_backend_of(setting.id)
    base = {"backend": "deepspeed", "sharding.strategy": "grads_optimizer"} if target == DEEPSPEED else \
        {"backend": "fsdp", "fsdp_version": 2, "loading.ram_efficient": False}
    answers = default_answers().replace({**base, "precision.mixed_precision": "fp8", "precision.fp8_backend": backend,
                                         setting.id: value})
    monkeypatch.setattr(ulaunch, "is_fp8_available", lambda: True)
    monkeypatch.setattr(ulaunch, "is_port_in_use", lambda port=None: False)
    env = _launch_env(tmp_path, render(answers).accelerate)
    for key, val in env.items():
        monkeypatch.setenv(key, val)
    monkeypatch.setattr(dataclasses, "is_transformer_engine_available", lambda: True)
    monkeypatch.setattr(dataclasses, "is_torchao_available", lambda: True)
    float8 = types.ModuleType("torchao.float8")
    float8.Float8LinearConfig = lambda **kw: types.SimpleNamespace(**kw)
    monkeypatch.setitem(sys.modules, "torchao", types.ModuleType("torchao"))
    monkeypatch.setitem(sys.modules, "torchao.float8", float8)
    recipe = {"TE": TERecipeKwargs, "MSAMP": MSAMPRecipeKwargs, "AO": AORecipeKwargs}[env["ACCELERATE_FP8_BACKEND"]]()
    field = setting.writes[target][0].key.removeprefix("fp8_config.")
    if field == "override_linear_precision":
        got = recipe.override_linear_precision[FP8_GEMMS.index(setting.id.rsplit("_", 1)[1])]
    else:
        got = getattr(recipe, field)
    assert got == value, (setting.id, field, got, env)
    if target == DEEPSPEED and backend == "msamp":  # the DeepSpeed plugin reads the same variable
        from accelerate.utils import DeepSpeedPlugin

        plugin = DeepSpeedPlugin()
        assert plugin.enable_msamp and plugin.msamp_opt_level == value
