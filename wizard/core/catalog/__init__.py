"""The catalogue: every setting the wizard knows, declared once, as data.

* :mod:`.model`: the shapes (targets, :class:`Group`, :class:`Setting`, :class:`Write`: where a value is written);
* :mod:`.settings`: the settings themselves;
* :mod:`.writes`: the maps derived from the writes (key -> setting, library spelling -> answer value, ...).

The names below are the ones the rest of the wizard imports (``from wizard.core.catalog import SETTINGS``).
"""
from __future__ import annotations

from .model import (
                    ALWAYS,
                    AUTO,
                    CUSTOM,
                    DEEPSPEED,
                    FSDP1,
                    FSDP2,
                    JSON,
                    SET,
                    TARGET_LABELS,
                    TARGETS,
                    YAML,
                    ZERO3,
                    Group,
                    Setting,
                    Write,
                    key_list,
                    where_line,
)
from .settings import (
                    FIXED_KEYS,
                    FP8_GEMMS,
                    GROUP_BY_ID,
                    GROUPS,
                    MAX_BATCH,
                    MAX_CLIP,
                    MAX_COUNT,
                    MAX_MACHINES,
                    MAX_PROCESSES,
                    MAX_STEPS,
                    SETTING_BY_ID,
                    SETTINGS,
                    SHARDING,
                    fp8_backend_of,
                    fp8_options,
                    settings_in,
                    target_of,
)

__all__ = ["ALWAYS", "AUTO", "CUSTOM", "DEEPSPEED", "FSDP1", "FSDP2", "JSON", "SET", "TARGET_LABELS", "TARGETS", "YAML",
           "ZERO3", "Group", "Setting", "Write", "key_list", "where_line", "FIXED_KEYS", "GROUP_BY_ID", "GROUPS",
           "MAX_BATCH", "MAX_CLIP", "MAX_COUNT", "MAX_MACHINES", "MAX_PROCESSES", "MAX_STEPS", "SETTING_BY_ID",
           "SETTINGS", "SHARDING", "settings_in", "target_of", "FP8_GEMMS", "fp8_backend_of", "fp8_options"]
