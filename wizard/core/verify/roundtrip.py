"""Round trip of an accelerate config through the real accelerate and DeepSpeed code.

No training is launched and no process group is created. The stages mirror what really happens
(see docs/library-behaviour.md#how-a-config-reaches-the-libraries):

1. **load** (rule ``verify-load``): ``accelerate.commands.config.config_args.load_config_from_file``
   (``ClusterConfig.from_yaml_file``).
2. **launch** (``verify-launch``): ``launch_command_parser().parse_args(['--config_file', path, 'train.py'])``,
   ``_validate_launch_command(args)``, then the env preparation of the launcher ``launch_command`` would
   pick: ``prepare_deepspeed_cmd_env`` (DeepSpeed, after setting ``deepspeed_fields_from_accelerate_config``
   exactly as ``launch_command`` does), ``prepare_multi_gpu_env`` (FSDP / MULTI_GPU / Megatron) or
   ``prepare_simple_launcher_cmd_env`` (anything else but TPU/SageMaker). The exported environment is
   applied the way ``patch_environment`` does (upper-cased keys, ``str()`` values).
3. **plugin** (``verify-plugin``): in an environment made of the exported variables only, the objects
   ``Accelerator.__init__`` builds, in its order: ``TorchDynamoPlugin()``, ``DeepSpeedPlugin()``,
   ``FullyShardedDataParallelPlugin()``, ``ParallelismConfig()``; then what ``AcceleratorState`` does with
   mixed precision (``plugin.set_mixed_precision``), ``ParallelismConfig._validate_accelerator``, with fp8 the
   recipe ``Accelerator.__init__`` builds from the launcher's ``ACCELERATE_FP8_*`` variables (``TERecipeKwargs``,
   ``MSAMPRecipeKwargs`` or ``AORecipeKwargs``, read back as ``fp8.*``) and the
   ``int(ACCELERATE_GRADIENT_ACCUMULATION_STEPS)`` of ``Accelerator.__init__``. The first exception
   stops the stage, as it would stop the real ``Accelerator()``.
4. **deepspeed config** (``verify-deepspeed-config``): the ``"auto"`` filling of
   ``Accelerator._prepare_deepspeed`` for a plain torch model + optimizer + one DataLoader, done with the
   plugin's own ``fill_match`` / ``deepspeed_config_process``, then deepspeed's own
   ``deepspeed.runtime.config.DeepSpeedConfig`` on the final dict.

With ``trainer_arguments`` (the Hugging Face Trainer is the training loop), stage 3 builds the real
``transformers.TrainingArguments`` from them in the exported environment (it makes the DeepSpeedPlugin from the
launcher's variables and decides the precision the Trainer hands its Accelerator), and stage 4 replays the
Trainer's path instead: ``propagate_args_to_deepspeed`` (``HfTrainerDeepSpeedConfig.trainer_config_process``),
``trainer_config_finalize(args, model, num_training_steps)`` (its mismatch ``ValueError`` included), then
accelerate's own filling for the Trainer's ``prepare(model, optimizer)`` (no DataLoader, an Accelerator told 1
accumulation step) and DeepSpeed's ``DeepSpeedConfig``. ``TrainingArguments.world_size`` is answered with
``num_processes`` (workaround #4: no process group exists), and transformers' global DeepSpeed config reference
is cleared afterwards.

The round trip models a GPU training node, not the machine running it. Four things are neutralised,
each only for the duration of one stage and restored afterwards: the device lookup of the FSDP plugin
(``_pretend_cuda_device``, only when no accelerator exists), the world size DeepSpeedConfig reads from a
missing process group (``_deepspeed_world_size``) and the launcher's local port probe
(``_port_probe_neutralised``), and with fp8 the package checks of the launcher, of ``AcceleratorState`` and of
the recipe where the backend's package is not installed here (``_fp8_package_answered``; an INFO finding,
``verify-fp8-recipe-only``, says so). Python warnings and WARNING log records emitted in stages 3 and 4 become
``verify-library-warning`` findings.

torch / accelerate / deepspeed are imported only inside functions. ``os.environ``, ``sys.argv``, the
working directory, accelerate's singleton states and every patched attribute are restored exactly.

The code, by seam:

- :mod:`.replay`: :func:`effective_config` and the stages (``_RoundTrip``);
- :mod:`.deepspeed_fill`: stage 4's "auto" filling (accelerate's and the Trainer's);
- :mod:`.readback`: the objects built, read back as plain values;
- :mod:`.guards`: the sandbox, the environment scrubbing, message capture and the three workarounds above;
- :mod:`.stubs`: what stands in for the model, the Accelerator, ``deepspeed.comm`` and the Trainer's world size;
- :mod:`.comparison`: :class:`Effective`, :func:`flatten_effective`, :func:`compare`, :func:`values_equal`.

This module is the round trip's public face: ``from wizard.core.verify.roundtrip import effective_config`` (and the
names in ``__all__``) keeps working whichever module holds them.
"""
from __future__ import annotations

from .comparison import _SOURCE, Effective, compare, flatten_effective, values_equal
from .replay import effective_config

__all__ = ["Effective", "compare", "effective_config", "flatten_effective", "values_equal", "_SOURCE"]
