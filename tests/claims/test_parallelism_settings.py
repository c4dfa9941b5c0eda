"""Claims of wizard/core/claims/parallelism.py behind the Parallelism group's settings: how the sequence-parallel
length flag reaches accelerate, AutoTP's size, ZeRO++ quantization. The launcher is prepared, never started
(tests/claims/launch_support.py); DeepSpeed's config and optimizers are read in this process."""
from __future__ import annotations

import inspect

import pytest
from launch_support import Launch, ds_base

pytestmark = pytest.mark.real

SP_CASES = ["yaml-false", "yaml-true", "flag-false-text"]


@pytest.mark.claim("launch-sp-variable-flag-type-bool")
@pytest.mark.parametrize("case", SP_CASES, ids=SP_CASES)
def test_the_variable_length_flag_and_the_yaml_value(tmp_path, clean_env, monkeypatch, case):  # noqa: F811
    from accelerate.utils.dataclasses import DeepSpeedSequenceParallelConfig

    pc = {"parallelism_config_sp_size": 2, "parallelism_config_sp_seq_length": 128}
    flags: tuple[str, ...] = ()
    if case == "yaml-false":
        pc["parallelism_config_sp_seq_length_is_variable"] = False
    elif case == "yaml-true":
        pc["parallelism_config_sp_seq_length_is_variable"] = True
    else:
        flags = ("--parallelism_config_sp_seq_length_is_variable", "False")
    env = Launch(tmp_path, {**ds_base(), "parallelism_config": pc}, flags).env
    for key, value in env.items():
        if key.startswith("PARALLELISM_CONFIG_"):
            monkeypatch.setenv(key, value)
    variable = DeepSpeedSequenceParallelConfig().sp_seq_length_is_variable
    if case == "yaml-false":
        assert env["PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE"] == "False" and variable is False
    else:  # true as written, and the flag's text "False" parsed by bool()
        assert env["PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE"] == "True" and variable is True


AUTOTP_CASES = ["absent-is-off", "size-read", "engine-applies-above-1", "accelerate-reads"]


@pytest.mark.claim("ds-autotp-size-from-json")
@pytest.mark.parametrize("case", AUTOTP_CASES, ids=AUTOTP_CASES)
def test_autotp_size_is_read_from_the_deepspeed_config(case):
    from deepspeed.runtime.config import DeepSpeedConfig

    base = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 1}}
    if case == "absent-is-off":
        assert DeepSpeedConfig(base).tensor_parallel_config.autotp_size == 0
    elif case == "size-read":
        assert DeepSpeedConfig({**base, "tensor_parallel": {"autotp_size": 2}}).tensor_parallel_config.autotp_size == 2
    elif case == "engine-applies-above-1":
        from deepspeed.runtime.engine import DeepSpeedEngine

        source = inspect.getsource(DeepSpeedEngine)
        # the engine's own size is the config's, and a size above 1 runs the AutoTP sharding of the model
        assert "return self._config.tensor_parallel_config.autotp_size" in inspect.getsource(
            DeepSpeedEngine.autotp_size)
        assert "if self.autotp_size() > 1:\n            autotp_replacement_sources = self._configure_tensor_parallel(" \
            in source
    else:
        from accelerate import Accelerator

        prepare = inspect.getsource(Accelerator._prepare_deepspeed)
        assert 'deepspeed_config.get("tensor_parallel", {}).get("autotp_size", 0)' in prepare
        assert "init_device_mesh(self.device.type, (tp_size,), mesh_dim_names=(mesh_dim_name,))" in prepare
        assert '.get("autotp_size", 0) > 1' in inspect.getsource(Accelerator.get_state_dict)


ZEROPP_CASES = ["default-off", "zero3-takes-it", "zero12-takes-none"]


def _zeropp(case: str, key: str, argument: str) -> None:
    """``key`` of zero_optimization: off by default, read when given; ``argument`` is how the engine hands it on,
    which only the ZeRO-3 optimizer takes."""
    if case == "default-off":
        from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

        assert getattr(DeepSpeedZeroConfig(stage=3), key) is False
        assert getattr(DeepSpeedZeroConfig(stage=3, **{key: True}), key) is True
        return
    if case == "zero3-takes-it":
        from deepspeed.runtime.zero.stage3 import DeepSpeedZeroOptimizer_Stage3 as Optimizer
    else:
        from deepspeed.runtime.zero.stage_1_and_2 import DeepSpeedZeroOptimizer as Optimizer
    assert (argument in inspect.signature(Optimizer.__init__).parameters) is (case == "zero3-takes-it")


@pytest.mark.claim("ds-zeropp-quantized-weights-zero3")
@pytest.mark.parametrize("case", ZEROPP_CASES, ids=ZEROPP_CASES)
def test_quantized_weights_are_a_zero3_option(case):
    _zeropp(case, "zero_quantized_weights", "zero_quantized_weights")


@pytest.mark.claim("ds-zeropp-quantized-gradients-zero3")
@pytest.mark.parametrize("case", ZEROPP_CASES, ids=ZEROPP_CASES)
def test_quantized_gradients_are_a_zero3_option(case):
    # the engine builds a local all-to-all group for qgZ and passes it as all2all_process_group
    _zeropp(case, "zero_quantized_gradients", "all2all_process_group")


DETAIL_CASES = ["cp-handler-only-above-1", "sp-handler-only-above-1", "length-unread-when-variable"]


@pytest.mark.claim("accelerate-parallelism-details-need-their-dimension")
@pytest.mark.parametrize("case", DETAIL_CASES, ids=DETAIL_CASES)
def test_the_details_need_their_dimension(clean_env, monkeypatch, case):  # noqa: F811
    from accelerate.parallelism_config import ParallelismConfig
    from accelerate.utils.dataclasses import DeepSpeedSequenceParallelConfig

    monkeypatch.setenv("PARALLELISM_CONFIG_CP_COMM_STRATEGY", "alltoall")
    monkeypatch.setenv("PARALLELISM_CONFIG_SP_SEQ_LENGTH", "128")
    if case == "cp-handler-only-above-1":
        assert ParallelismConfig(dp_shard_size=2).cp_handler is None
        assert ParallelismConfig(dp_shard_size=2, cp_size=2).cp_handler.cp_comm_strategy == "alltoall"
    elif case == "sp-handler-only-above-1":
        assert ParallelismConfig(dp_shard_size=2).sp_handler is None
        assert ParallelismConfig(sp_size=2).sp_handler is not None
    else:
        monkeypatch.setenv("PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE", "true")
        assert DeepSpeedSequenceParallelConfig().sp_seq_length is None
        monkeypatch.setenv("PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE", "false")
        assert DeepSpeedSequenceParallelConfig().sp_seq_length == 128


_SP_BATCH = """\
import json
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore
import deepspeed
from deepspeed.runtime.config import DeepSpeedConfig
from deepspeed.runtime.sequence_parallel import parallel_state_sp
from accelerate.parallelism_config import ParallelismConfig
world, sp = 8, 4
dist.init_process_group("fake", rank=0, world_size=world, store=FakeStore())
deepspeed.init_distributed(dist_backend="fake")
parallel_state_sp.initialize_sequence_parallel(sp)  # the groups accelerate's prepare() has DeepSpeed build
out = {}
for name, sizes in (("sp-alone-fails", {"sp_size": sp}),
                    ("dp-shard-the-rest-passes", {"sp_size": sp, "dp_shard_size": world // sp})):
    pc = ParallelismConfig(**sizes)
    # accelerate's last-moment train_batch_size (accelerator.py:2360-2365), micro batch 1, accumulation 1
    config = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
              "train_batch_size": 1 * 1 * pc.data_parallel_size}
    try:
        DeepSpeedConfig(config, mpu=parallel_state_sp)
        out[name] = "ok"
    except AssertionError as exc:
        out[name] = str(exc)
print("RESULT " + json.dumps(out), flush=True)
"""
SP_BATCH_CASES = ["sp-alone-fails", "dp-shard-the-rest-passes"]


@pytest.fixture(scope="module")
def sp_batch():
    import subprocess
    import sys

    from gloo_ranks import result_of

    proc = subprocess.run([sys.executable, "-c", _SP_BATCH], capture_output=True, text=True, timeout=240)
    return result_of(proc.stdout, proc.returncode, proc.stderr)


@pytest.mark.claim("ds-ulysses-batch-needs-dp-sizes")
@pytest.mark.parametrize("case", SP_BATCH_CASES, ids=SP_BATCH_CASES)
def test_ulysses_batch_size_needs_the_data_parallel_sizes(sp_batch, case):
    """Eight ranks of torch's fake process group, Ulysses sp 4: DeepSpeed counts 8 / 4 = 2 data-parallel ranks."""
    if case == "sp-alone-fails":
        assert sp_batch[case].startswith("Check batch related parameters") and "1 != 1 * 1 * 2" in sp_batch[case]
    else:
        assert sp_batch[case] == "ok"
