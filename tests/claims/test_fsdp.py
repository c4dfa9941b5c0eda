"""Claims about FSDP (wizard/core/claims/fsdp.py).

accelerate's FSDP path does not run on CPU by itself; the tests that need it run tests/claims/_fsdp_cpu.py in
fresh processes (one gloo rank, or two), which installs the rehearsal shim wizard/run/cpu_fsdp_compat.py first.
Each of those scripts runs once per session (module-scoped fixtures) and several claims read its results.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gloo_ranks import one_rank_env, result_of, run_ranks
from launch_support import fsdp_launch_env

SCRIPT = Path(__file__).with_name("_fsdp_cpu.py")


def _run(mode: str, world: int, script: Path = SCRIPT) -> dict[int, dict]:
    return run_ranks(script, mode, world=world)


@pytest.fixture(scope="module")
def single():
    return _run("single", 1)[0]


@pytest.fixture(scope="module")
def two_ranks():
    return _run("sync", 2)


@pytest.mark.claim("fsdp-min-num-params-zero-no-policy")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
@pytest.mark.parametrize("min_num_params", [pytest.param(0, id="zero"), pytest.param(-1, id="negative")])
def test_min_num_params_zero_drops_the_policy_on_both_versions(clean_env, version, min_num_params):
    import torch
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 2))
    plugin = Plugin(fsdp_version=version, auto_wrap_policy="SIZE_BASED_WRAP", min_num_params=min_num_params)
    plugin.set_auto_wrap_policy(model)  # what prepare() does first
    assert plugin.auto_wrap_policy is None
    assert fsdp2_prepare_auto_wrap_policy(plugin, model) is None
    positive = Plugin(fsdp_version=version, auto_wrap_policy="SIZE_BASED_WRAP", min_num_params=1)
    positive.set_auto_wrap_policy(model)
    assert positive.auto_wrap_policy is not None


_SIZE_UNITS = {  # Block.fc 72 parameters, each Block 72, blocks 144 (head 18)
    1: {"v1_50": ["blocks.0.fc", "blocks.1.fc"],  # parents have nothing unwrapped left
        "v1_72": ["blocks.0.fc", "blocks.1.fc"]},  # >= 72
    2: {"v2_50": ["blocks", "blocks.0", "blocks.0.fc", "blocks.1", "blocks.1.fc"],  # whole subtrees
        "v2_72": ["blocks"]},  # > 72
}


@pytest.mark.claim("fsdp-size-policy-counts")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
def test_size_policies_count_differently(single, version):
    size = single["size"]
    for key, units in _SIZE_UNITS[version].items():
        assert size[key] == units, key


@pytest.mark.claim("fsdp-min-num-params-int")
@pytest.mark.parametrize("written", ["1e8", "100000000"], ids=["exponent-1e8", "plain-integer"])
def test_min_num_params_must_be_a_plain_integer(clean_env, written):
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    clean_env.setenv("FSDP_MIN_NUM_PARAMS", written)
    if written == "1e8":
        with pytest.raises(ValueError, match="invalid literal for int"):
            Plugin(fsdp_version=2, auto_wrap_policy="SIZE_BASED_WRAP")
    else:
        assert Plugin(fsdp_version=2, auto_wrap_policy="SIZE_BASED_WRAP").min_num_params == 100_000_000


@pytest.mark.claim("fsdp-launch-exports-defaults")
@pytest.mark.claim("fsdp-launch-ram-efficient-needs-sync")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
@pytest.mark.parametrize("policy", [pytest.param("TRANSFORMER_BASED_WRAP", id="transformer-policy"),
                                    pytest.param("SIZE_BASED_WRAP", id="size-policy"),
                                    pytest.param("NO_WRAP", id="no-wrap")])
def test_launch_exports_defaults_and_refuses_ram_efficient_without_sync(tmp_path, clean_env, version, policy):
    env = fsdp_launch_env(tmp_path, clean_env, {"fsdp_version": version, "fsdp_auto_wrap_policy": policy})
    assert env["FSDP_MIN_NUM_PARAMS"] == "100000000" and env["FSDP_SYNC_MODULE_STATES"] == "true"
    assert env["FSDP_CPU_RAM_EFFICIENT_LOADING"] == "true"
    with pytest.raises(ValueError, match="fsdp_sync_module_states"):
        fsdp_launch_env(tmp_path, clean_env, {"fsdp_version": version, "fsdp_auto_wrap_policy": policy,
                                              "fsdp_sync_module_states": False})
    env = fsdp_launch_env(tmp_path, clean_env, {"fsdp_version": version, "fsdp_auto_wrap_policy": policy,
                                            "fsdp_sync_module_states": False,
                                            "fsdp_cpu_ram_efficient_loading": False})
    assert env["FSDP_SYNC_MODULE_STATES"] == "false"


@pytest.mark.claim("fsdp2-ac-needs-wrap-policy")
@pytest.mark.parametrize("case", ["no_wrap", "size_0"], ids=["no-wrap", "size-min-0"])
def test_fsdp2_activation_checkpointing_without_a_wrap_policy_fails(single, case):
    assert single[case] == "TypeError: 'NoneType' object is not callable"
    assert single["ac_v2"]["wrapped"]  # with a policy the same prepare() works


@pytest.mark.claim("fsdp-ac-placement")
@pytest.mark.claim("fsdp2-ac-no-rng-state")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
def test_where_each_version_puts_checkpoint_wrappers(single, version):
    got = single[f"ac_v{version}"]
    assert got["impl"] == "CheckpointImpl.NO_REENTRANT"
    if version == 1:
        assert got["wrapped"] == ["Block", "Block"] and not got["wrapper_is_fsdp_module"]  # unit > wrapper > Block
        assert "preserve_rng_state" not in got["kwargs"]  # torch.utils.checkpoint's default, True
    else:
        assert got["wrapped"] == ["FSDPBlock", "FSDPBlock"] and got["wrapper_is_fsdp_module"]  # fully_shard(wrapper)
        assert got["kwargs"]["preserve_rng_state"] == "False"


@pytest.mark.claim("fsdp-get-state-dict-full")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
@pytest.mark.parametrize("sdt", ["sharded", "full"])
def test_get_state_dict_is_full_whatever_the_state_dict_type(single, version, sdt):
    sd = single["state_dict"][f"v{version}_{sdt}"]
    assert sd["live_sharded"] and sd["get_state_dict_plain"] and sd["get_state_dict_full"]
    assert sd["save_model_files"] == ["model.safetensors"]  # one full file, whatever the state dict type
    if sdt == "sharded":  # only save_state follows the type: a torch.distributed.checkpoint folder
        assert sd["save_state_fsdp_entry"] == ["pytorch_model_fsdp_0"]
        assert ".metadata" in sd["save_state_sharded_files"]
        assert any(f.endswith(".distcp") for f in sd["save_state_sharded_files"])
    else:  # FULL: one gathered file
        assert sd["save_state_fsdp_entry"] == ["pytorch_model_fsdp.bin"] and not sd["save_state_sharded_files"]
    if version == 2:
        assert sd["dtypes"] == ["torch.float32"]  # a bf16 model under bf16 mixed precision, upcast by FSDP2


@pytest.fixture(scope="module")
def frozen():
    return _run("frozen", 1)[0]


@pytest.mark.claim("fsdp-saved-weights-fp32")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
@pytest.mark.parametrize("part, dtype", [pytest.param("blocks.1.fc.weight", "torch.float32", id="trainable"),
                                         pytest.param("head.weight", "torch.float32", id="trainable_root"),
                                         pytest.param("blocks.0.fc.weight", "torch.bfloat16", id="frozen")])
def test_only_trainable_parameters_are_saved_in_fp32(frozen, version, part, dtype):
    """A bf16 model under bf16 mixed precision: what get_state_dict (and so save_model) returns keeps a frozen
    block in bf16; only trainable parameters come back fp32."""
    assert frozen[f"v{version}"][part] == dtype, frozen[f"v{version}"]


@pytest.fixture(scope="module")
def torchao_refusals():
    """What Accelerator() says to torchao as the fp8 backend on FSDP, per version and ram-efficient loading. The
    backend comes from ACCELERATE_FP8_BACKEND=AO (what launch exports for fp8_config.backend AO), without
    mixed_precision fp8, whose state set-up would need torchao installed; the refusal is checked before that
    matters."""
    from gloo_ranks import one_rank

    proc = one_rank("""
        import json, os, sys
        os.environ["ACCELERATE_TORCH_DEVICE"] = "cpu"
        sys.path.insert(0, HERE)
        import _fsdp_cpu as f  # installs the CPU FSDP shim
        os.environ["ACCELERATE_FP8_BACKEND"] = "AO"
        out = {}
        for v in (1, 2):
            for ram in (True, False):
                try:
                    f.Accelerator(fsdp_plugin=f.Plugin(fsdp_version=v, cpu_ram_efficient_loading=ram,
                                                       sync_module_states=True))
                    out[f"v{v}_{ram}"] = ""
                except ValueError as e:
                    out[f"v{v}_{ram}"] = str(e)
                f.reset()
        print("RESULT " + json.dumps(out), flush=True)
    """.replace("HERE", repr(str(Path(__file__).parent))), timeout=180)
    return result_of(proc.stdout, proc.returncode, proc.stderr)


@pytest.mark.claim("fsdp-torchao-fp8-no-ram-efficient")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
@pytest.mark.parametrize("ram_efficient", [pytest.param(True, id="ram_efficient"), pytest.param(False, id="plain")])
def test_torchao_fp8_refuses_ram_efficient_loading_on_either_version(torchao_refusals, version, ram_efficient):
    error = torchao_refusals[f"v{version}_{ram_efficient}"]
    if ram_efficient:
        assert "cpu_ram_efficient_loading" in error  # FSDP1 too, whatever the message says of FSDP2
    else:
        assert error == ""


@pytest.mark.claim("fsdp-state-dict-type-defaults")
@pytest.mark.parametrize("case", ["fsdp1", "fsdp2", "fsdp2-local-refused"])
def test_state_dict_type_defaults(clean_env, case):
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import StateDictType

    if case == "fsdp1":
        v1 = Plugin(fsdp_version=1)
        assert v1.state_dict_type == StateDictType.FULL_STATE_DICT
        assert v1.state_dict_config.rank0_only and v1.state_dict_config.offload_to_cpu
    elif case == "fsdp2":
        assert Plugin(fsdp_version=2).state_dict_type == StateDictType.SHARDED_STATE_DICT
    else:
        with pytest.raises(ValueError, match="LOCAL_STATE_DICT"):
            Plugin(fsdp_version=2, state_dict_type="LOCAL_STATE_DICT")


@pytest.mark.claim("fsdp1-sync-module-states-broadcasts")
@pytest.mark.claim("fsdp2-no-broadcast-unless-ram-efficient")
@pytest.mark.parametrize("case", ["fsdp1_sync_True", "fsdp1_sync_False", "fsdp2_ram_True", "fsdp2_ram_False"],
                         ids=["fsdp1-sync", "fsdp1-no-sync", "fsdp2-ram-efficient", "fsdp2-plain"])
def test_who_makes_the_ranks_start_identical(two_ranks, case):
    r1 = two_ranks[1]  # rank 1 initialised with another seed than rank 0
    if case == "fsdp2_ram_False":
        assert r1[case] == {"own": True, "rank0": False}  # accelerate prepare: its own weights
        assert two_ranks[0][case]["rank0"]
    elif case == "fsdp2_ram_True":
        assert r1[case] == {"own": False, "rank0": True}  # rank 0's, broadcast by accelerate
    else:  # without sync the gathered model mixes both ranks' halves
        for rank in (0, 1):
            assert two_ranks[rank][case] is (case == "fsdp1_sync_True")


@pytest.mark.claim("fsdp2-ignores-sync-module-states")
@pytest.mark.parametrize("key, field", [pytest.param("FSDP_SYNC_MODULE_STATES", "sync_module_states",
                                                     id="sync-module-states"),
                                        pytest.param("FSDP_USE_ORIG_PARAMS", "use_orig_params", id="use-orig-params")])
def test_fsdp2_ignores_sync_module_states(clean_env, key, field):
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    clean_env.setenv(key, "true")
    assert getattr(Plugin(fsdp_version=2), field) is None
    clean_env.setenv(key, "false")  # sync true would need an accelerator device on FSDP1
    assert getattr(Plugin(fsdp_version=1), field) is False  # FSDP1 reads it


_HF = r'''
import os, sys, tempfile, json, torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.distributed.fsdp import is_fsdp_enabled
small = dict(vocab_size=32, hidden_size=16, intermediate_size=32, num_attention_heads=2, num_key_value_heads=2)
d = tempfile.mkdtemp()
torch.manual_seed(0)
LlamaForCausalLM(LlamaConfig(num_hidden_layers=1, **small)).save_pretrained(d)
saved = LlamaForCausalLM.from_pretrained(d).state_dict()
out = {"before_group": is_fsdp_enabled()}
torch.distributed.init_process_group("gloo")
out["after_group"] = is_fsdp_enabled()
out["env_off"] = {}
for key in ("ACCELERATE_USE_FSDP", "FSDP_CPU_RAM_EFFICIENT_LOADING"):
    os.environ[key] = "false"
    out["env_off"][key] = is_fsdp_enabled()
    os.environ[key] = "true"
sd = LlamaForCausalLM.from_pretrained(d).state_dict()
out["loaded"] = all(torch.equal(sd[k], saved[k]) for k in saved)
spans = [tuple(int(x, 16) for x in line.split()[0].split("-")) for line in open("/proc/self/maps")
         if "safetensors" in line]
out["memory_mapped"] = all(any(a <= t.data_ptr() < b for a, b in spans) for t in sd.values())
two = LlamaForCausalLM.from_pretrained(d, config=LlamaConfig(num_hidden_layers=2, **small))
out["missing_on"] = str(two.model.layers[1].mlp.up_proj.weight.device)
print("RESULT " + json.dumps(out), flush=True)
sys.stderr.flush()
os._exit(0)  # no interpreter teardown: gloo's threads can abort it after the result was printed
'''


@pytest.fixture(scope="module")
def hf_loading():
    results = {}
    for local_rank in (1, 0):  # a one-rank group that calls itself local rank 1 stands in for a second GPU
        env = one_rank_env(LOCAL_RANK=str(local_rank), LOCAL_WORLD_SIZE=None, ACCELERATE_USE_FSDP="true",
                           FSDP_CPU_RAM_EFFICIENT_LOADING="true", HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
        p = subprocess.run([sys.executable, "-c", _HF], env=env, capture_output=True, text=True, timeout=180)
        results[local_rank] = result_of(p.stdout, p.returncode, p.stderr)
    return results


@pytest.mark.claim("transformers-fsdp-loading-needs-process-group")
@pytest.mark.claim("transformers-fsdp-loading-every-rank-reads")
@pytest.mark.parametrize("case", ["no-process-group", "process-group", "accelerate-use-fsdp-false",
                                  "ram-efficient-false", "local-rank-0", "other-local-rank"])
def test_transformers_fsdp_loading(hf_loading, case):
    r1 = hf_loading[1]
    if case == "no-process-group":
        assert r1["before_group"] is False
    elif case == "process-group":
        assert r1["after_group"] is True
    elif case == "accelerate-use-fsdp-false":
        assert r1["env_off"]["ACCELERATE_USE_FSDP"] is False
    elif case == "ram-efficient-false":
        assert r1["env_off"]["FSDP_CPU_RAM_EFFICIENT_LOADING"] is False
    elif case == "local-rank-0":
        r0 = hf_loading[0]
        assert r0["loaded"] and r0["memory_mapped"] and r0["missing_on"] == "cpu"  # reads, and fills what is missing
    else:
        assert r1["loaded"] and r1["memory_mapped"]  # local rank 1 reads the checkpoint too
        assert r1["missing_on"] == "meta"  # and leaves a weight missing from the checkpoint on meta
