"""The dtype table: which dtype parameters, gradients and optimizer state have, per backend, for a model dtype and
a mixed-precision mode (the TUI's precision table and its notes)."""
from __future__ import annotations

from dataclasses import dataclass

MODEL_DTYPES = ("fp32", "bf16", "fp16")
MIXED_PRECISIONS = ("no", "fp16", "bf16", "fp8")

TABLE_CLAIMS: tuple[str, ...] = (
    "fsdp1-autocast-fsdp2-none", "fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter",
    "fsdp-policy-from-mixed-precision", "fsdp-no-mixed-precision-keeps-load-dtype", "fsdp-fp16-grad-scaler",
    "fp8-backend-limits", "fsdp-saved-weights-fp32", "ds-module-cast-fp32-master",
    "ds-zero0-no-master", "ds-bf16-master-weights-option", "ds-communication-dtype-default", "ds-zero-init-dtype")
"""The claims (:mod:`wizard.core.claims`) the table and its notes state."""

_COMPUTE = {"fp16": "fp16", "bf16": "bf16", "fp8": "fp8+bf16"}
_SIXTEEN = {"fp16": "fp16", "bf16": "bf16", "fp8": "bf16"}
"""The 16-bit dtype DeepSpeed casts the model to for each mixed-precision mode (fp8 runs on bf16)."""


@dataclass(frozen=True)
class PrecisionRow:
    backend: str
    """"FSDP1", "FSDP2" or "DeepSpeed"."""
    load: str
    """dtype of the weights after from_pretrained(torch_dtype=...)."""
    flat_params_or_prepared: str
    """dtype of the parameters after prepare(): FSDP's flat/sharded params; DeepSpeed's module parameters
    and, when they are 16-bit, the fp32 master partition the optimizer updates. Per GPU, so any upcast is
    divided by the number of ranks."""
    training_compute: str
    """dtype of forward/backward matmuls."""
    optimizer_state: str
    """dtype of the optimizer step and its state (Adam moments)."""
    checkpoint: str
    """dtype of the saved weights."""
    autocast: str
    """"yes" when accelerate wraps forward in autocast (FSDP1 with mixed precision), else "no"."""
    upcast: str
    """What is upcast to fp32 at prepare(): FSDP1 "whole unit" (frozen weights sharing a unit with trainable ones
    too), FSDP2 "trainable only"; DeepSpeed "fp32 master" (a separate copy); "none"."""
    bytes_per_param: str
    """Bytes per trainable parameter for weights, gradients and AdamW state, before sharding; for DeepSpeed with
    a bf16 module also the figure with its bf16 master-weights option."""


def _check(model_dtype: str, mixed_precision: str) -> None:
    if model_dtype not in MODEL_DTYPES:
        raise ValueError(f"model_dtype must be one of {MODEL_DTYPES}, got {model_dtype!r}")
    if mixed_precision not in MIXED_PRECISIONS:
        raise ValueError(f"mixed_precision must be one of {MIXED_PRECISIONS}, got {mixed_precision!r}")


def _ds_params(module_dtype: str) -> str:
    """DeepSpeed's parameters: the module's own (cast to the 16-bit dtype) plus the fp32 master the optimizer
    updates."""
    return "fp32" if module_dtype == "fp32" else f"{module_dtype} module + fp32 master"


_SIZE = {"fp32": 4, "bf16": 2, "fp16": 2}


def precision_table(model_dtype: str, mixed_precision: str) -> list[PrecisionRow]:
    """Where each dtype ends up on FSDP1, FSDP2 and DeepSpeed ZeRO-1/2/3 for a load dtype and mixed precision.

    Follows the concept guide's table, corrected for the installed code (the claims in :data:`TABLE_CLAIMS`):
    with mixed precision accelerate upcasts FSDP1's units that hold a trainable parameter (frozen weights in them
    too) and adds autocast; for FSDP2 it upcasts trainable parameters only and adds no autocast. DeepSpeed's ZeRO
    optimizers keep fp32 master partitions by default, whether or not mixed precision is on. ZeRO-0 and zero.Init
    exceptions are in :func:`precision_notes`.
    """
    _check(model_dtype, mixed_precision)
    md, mp = model_dtype, mixed_precision
    module = md if mp == "no" else _SIXTEEN[mp]
    ds_bytes = "20" if module == "fp32" else "16 (bf16 masters: 10)" if module == "bf16" else "16"
    ds_upcast = "fp32 master"
    if mp == "no":
        b = str(4 * _SIZE[md])
        rows = [PrecisionRow(v, md, md, md, md, md, "no", "none", b) for v in ("FSDP1", "FSDP2")]
        ds = PrecisionRow("DeepSpeed", md, _ds_params(md), md, "fp32", f"{md} weights + fp32 master shards",
                          "no", ds_upcast, ds_bytes)
    else:
        low = md != "fp32"
        # only what accelerate upcasts becomes fp32 (claim fsdp-saved-weights-fp32): FSDP1 units holding a
        # trainable parameter, FSDP2 trainable parameters; the rest keeps the load dtype
        v1 = f"fp32 (all-frozen units: {md})" if low else "fp32"
        v2 = f"fp32 (frozen: {md})" if low else "fp32"
        rows = [PrecisionRow("FSDP1", md, v1, _COMPUTE[mp], "fp32", v1, "yes",
                             "whole unit" if low else "none", "16"),
                PrecisionRow("FSDP2", md, v2, _COMPUTE[mp], "fp32", v2, "no",
                             "trainable only" if low else "none", "16")]
        ds = PrecisionRow("DeepSpeed", md, _ds_params(_SIXTEEN[mp]), _COMPUTE[mp], "fp32",
                          f"{_SIXTEEN[mp]} weights + fp32 master shards", "no", ds_upcast, ds_bytes)
    return [*rows, ds]


NOTES: dict[str, str] = {
    "low_no_mp": (
        "{md} weights with no mixed precision: FSDP trains, reduces gradients and keeps Adam state in {md}, 8 bytes "
        "per parameter before sharding instead of 16, but small updates can be rounded away. DeepSpeed ZeRO-1/2/3 "
        "by default still build fp32 master weights and fp32 Adam state from the {md} weights: 16 bytes before "
        "sharding, 8 more, so on few GPUs DeepSpeed needs clearly more memory."),
    "bf16_masters_option": (
        "With bf16 enabled and its bf16 master-weights option, master and Adam state stay bf16: 10 bytes (the "
        "master is still a copy)."),
    "zero0_no_master": (
        "DeepSpeed ZeRO-0 (sharding 'none') with no mixed precision has no master copy: the optimizer updates the "
        "{md} parameters directly, as FSDP does."),
    "fp16_no_scaling": (
        "fp16 without mixed precision runs with no loss scaling on either backend: small gradients underflow to "
        "zero. Prefer bf16, or load fp32 and use mixed_precision fp16."),
    "fp32_throughout": (
        "fp32 throughout: the most stable and the most expensive option. Adam needs 16 bytes per parameter before "
        "sharding, and activations take twice the bf16 space. Both backends behave the same."),
    "low_with_mp": (
        "{md} weights with {mp} mixed precision: at prepare() accelerate upcasts to fp32 every FSDP1 unit that "
        "holds a trainable parameter, frozen weights in it included (warning 'Upcasted low precision "
        "parameters'); FSDP2 upcasts only trainable parameters, frozen ones stay {md}. FSDP checkpoints hold the "
        "upcast parameters in fp32 (twice their {md} size) and the rest in {md}. DeepSpeed casts the model to "
        "{sixteen} and keeps a separate fp32 master partition; its 16-bit save writes {sixteen}."),
    "fp32_with_mp": (
        "fp32 weights with {mp} mixed precision: FSDP keeps fp32 shards and all-gathers them in {sixteen} for "
        "each forward and backward; DeepSpeed converts the model itself to {sixteen} and keeps a separate fp32 "
        "master partition. Both come to about 16 bytes per parameter for Adam before sharding."),
    "reduce_dtype": (
        "Gradients are summed across ranks in {sixteen} on both backends by default (FSDP: reduce dtype = mixed "
        "precision; DeepSpeed: communication_data_type follows it). DeepSpeed can switch to fp32 with "
        "communication_data_type; FSDP needs a policy set in code."),
    "buffers": (
        "FSDP1 also casts buffers to the mixed-precision dtype; FSDP2 and DeepSpeed leave buffers (e.g. rotary "
        "frequencies) in the dtype they were loaded in."),
    "autocast": (
        "FSDP1 runs forward under autocast (accelerate wraps it) and returns fp32 outputs. FSDP2 gets no autocast: "
        "only its policy casts parameters, so operations on tensors your code creates in fp32 stay fp32, and "
        "outputs come back in the mixed-precision dtype."),
    "fp16_scaling": (
        "fp16 needs loss scaling: accelerate adds a gradient scaler for FSDP (ShardedGradScaler on v1, GradScaler "
        "on v2) and DeepSpeed uses its dynamic loss scaler. Values beyond about 65,504 overflow."),
    "bf16_in_fp16": (
        "bf16 weights run in fp16: bf16 has a wider range, so a model trained in bf16 can overflow in fp16. Prefer "
        "bf16 mixed precision for such checkpoints."),
    "fp8": (
        "fp8: only the matrix multiplies of supported layers run in fp8 (Transformer Engine, torchao or MS-AMP); "
        "the rest runs in bf16, which is also FSDP's parameter dtype. MS-AMP is refused with FSDP and with ZeRO-3; "
        "torchao on FSDP also limits model loading (see loading.ram_efficient). Needs an fp8-capable GPU (Ada, "
        "Hopper or newer)."),
    "zero_init_dtype": (
        "DeepSpeed ZeRO-3 with zero3_init_flag: Transformers creates the parameters inside deepspeed.zero.Init, "
        "which uses DeepSpeed's dtype ({init} here), not the {md} torch_dtype."),
}
"""The notes under the dtype table, each a template (``{md}`` the load dtype, ``{mp}`` the mixed precision,
``{sixteen}`` DeepSpeed's 16-bit dtype, ``{init}`` zero.Init's dtype); translated by key."""


def precision_note_keys(model_dtype: str, mixed_precision: str) -> list[tuple[str, dict[str, str]]]:
    """Which notes of :data:`NOTES` a load dtype / mixed-precision pair has, each with the values it is filled
    with: (key, values)."""
    _check(model_dtype, mixed_precision)
    md, mp = model_dtype, mixed_precision
    low = md != "fp32"
    notes: list[tuple[str, dict[str, str]]] = []
    if mp == "no":
        if low:
            notes.append(("low_no_mp", {"md": md}))
            if md == "bf16":
                notes.append(("bf16_masters_option", {}))
            notes.append(("zero0_no_master", {"md": md}))
            if md == "fp16":
                notes.append(("fp16_no_scaling", {}))
        else:
            notes.append(("fp32_throughout", {}))
    else:
        sixteen = _SIXTEEN[mp]
        notes.append(("low_with_mp" if low else "fp32_with_mp", {"md": md, "mp": mp, "sixteen": sixteen}))
        notes.append(("reduce_dtype", {"sixteen": sixteen}))
        notes.append(("buffers", {}))
        notes.append(("autocast", {}))
        if mp == "fp16":
            notes.append(("fp16_scaling", {}))
            if md == "bf16":
                notes.append(("bf16_in_fp16", {}))
        if mp == "fp8":
            notes.append(("fp8", {}))
    ds_init_dtype = _SIXTEEN.get(mp, "fp32")
    if ds_init_dtype != md:
        notes.append(("zero_init_dtype", {"init": ds_init_dtype, "md": md}))
    return notes


def precision_notes(model_dtype: str, mixed_precision: str, say=None) -> list[str]:
    """Plain-language consequences of a load dtype / mixed-precision pair, FSDP and DeepSpeed side by side: in
    English, or as ``say(key, values)`` words each note (:func:`wizard.core.localized.dtype_notes`: in the chosen
    language). The bf16 master-weights option is said in the same note as the first."""
    out: list[str] = []
    for key, values in precision_note_keys(model_dtype, mixed_precision):
        note = NOTES[key].format(**values) if say is None else say(key, values)
        if key == "bf16_masters_option":
            out[-1] += " " + note
        else:
            out.append(note)
    return out
