"""In which accelerate release each config key arrived (or left): the keys a config may have depend on the release
that reads it. Replayed by scripts/replay_accelerate_versions.py (docs/versions-accelerate.md); the ranges use the
specifiers of wizard/core/context.py.
"""
from __future__ import annotations

from .fsdp import FSDP_TABLE
from .launcher import PARALLELISM_ALWAYS, PARALLELISM_CP, PARALLELISM_SP, PC

FSDP_VERSION_SINCE = "1.6.0"
"""``fsdp_version`` and ``fsdp_reshard_after_forward`` (FSDP2) are read since this release; before, the plugin is
FSDP1 whatever is written (the FSDP rules judge them: lint/fsdp.py)."""
KEY_SINCE = {
    **{f"fsdp_config.{k.arg}": k.since for k in FSDP_TABLE if k.since},
    "dynamo_config.dynamo_use_regional_compilation": "1.7.0",
    **{f"parallelism_config.{k}": "1.10.0" for k in sorted(PARALLELISM_ALWAYS | PARALLELISM_CP)},
    **{f"parallelism_config.{PC}{k}": "1.12.0" for k in ("cp_backend", "sp_size", "sp_backend")},
    **{f"parallelism_config.{k}": "1.12.0" for k in sorted(PARALLELISM_SP)},
    "fp8_config.fp8_enable_fsdp_float8_all_gather": "1.13.0",
    "fp8_config.fp8_pad_inner_dim": "1.13.0",
}
"""A section key (as the launcher names it) -> the first accelerate release that reads it; older releases copy it
onto the launch arguments and never read it. (fsdp_version and fsdp_reshard_after_forward: :data:`FSDP_VERSION_SINCE`,
with rules of their own.)"""
DYNAMO_PREFIX_SINCE = "1.14.0"
"""dynamo_config keys without the ``dynamo_`` prefix (``backend``) are read since this release; before, they were
copied as written and never read."""
TOP_LEVEL_SINCE = {"parallelism_config": "1.10.0"}
"""Top-level ClusterConfig fields newer than accelerate 1.0: older releases fail to load a file with them."""
TOP_LEVEL_UNTIL = {"ipex_config": ("1.0.0", "1.13.0"), "tp_config": ("1.4.0", "1.7.0")}
"""Top-level ClusterConfig fields of older releases (field exists for first <= version < end); 1.15 rejects them."""
