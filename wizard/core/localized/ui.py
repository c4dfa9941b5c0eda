"""The words around the explanations (headings, labels, the pane's hints), in English, each under a key: the
explanation screens and ``explain`` read them through :func:`wizard.core.localized.ui`, which translates them. A
``{name}`` is filled in after translation and must stay in every translation."""
from __future__ import annotations

UI: dict[str, str] = {
    # explain (the command) and the TUI's explanation pane
    "versions": "Versions:",
    "versions_pitfalls": "Versions and pitfalls:",
    "tip": "Tip:",
    "no_counterpart": "No counterpart:",
    "counterpart": "Counterpart:",
    "default": "default:",
    "choices": "choices:",
    "not_applicable": "n/a:",
    "not_used": "not used",
    "no_such_setting": "no such setting",
    "evidence": "Evidence (docs/claims.md):",
    "mesh_example": "Example, FSDP2 on 8 processes: the index of each rank along each dimension, and the groups "
                    "(ranks that differ in one dimension only):",
    "not_used_by": "Not used by {target}:",
    "written_now": "Written now for {target}:",
    "written_nothing": "nothing (the library default applies, or the value lives in your script)",
    "where_each": "Where each target keeps it",
    "guide_group": "One of the groups of the Accelerate guide \"FSDP vs DeepSpeed\".",
    "group_hint": "Enter: edit this group · F2: zoom this pane · F1: all keys",
    "fix": "Fix:",
    "blames": "Blames:",
    "source": "Source:",
    "jump_hint": "Enter jumps to the setting.",
    "dtype_title": "dtypes with weights loaded in {model_dtype}, mixed_precision {mixed_precision} (the guide's table)",
    "dtype_load": "load",
    "dtype_params": "params",
    "dtype_compute": "compute",
    "dtype_upcast": "upcast",
    "dtype_optim": "optim",
    "dtype_checkpoint": "checkpoint",
    # the TUI's frame
    "groups": "Groups",
    "review_and_write": "Review and write",
    "explanation": "Explanation",
    "findings": "Findings",
    "language_now": "Language: {name}",
    "language_switch": "Switch the language of the explanations to {name}",
}
"""Key -> the English words."""

SHORT_GROUP_LABELS: dict[str, str] = {
    "sharding": "Sharding/partitioning", "parallelism": "Parallelism", "checkpoint": "Checkpointing",
    "sync": "Parameter sync", "precision": "Precision (dtypes)", "deepspeed": "DeepSpeed JSON",
}
"""Group names for the wizard's sidebar, where the full label would not fit 22 cells (translated with the group,
key ``GROUP.short``); the form's heading shows the full label."""
