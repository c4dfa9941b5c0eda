"""The commands' own lines (what ``check``, ``--headless`` and ``convert`` print around the findings) in the
language: the English here is the one source, each translated in the ``lines`` part like every other text.

Kept light (a dict and a lookup): the hot commands import it at start, and in English it reads no file.
"""
from __future__ import annotations

from . import filled, translate

LINES: dict[str, str] = {
    # --version: the table's heads, a library that is not installed, and what other versions do
    "version_library": "library",
    "version_verified": "verified against",
    "version_installed": "installed here",
    "version_not_installed": "not installed",
    "version_others": "Other versions in the [run] extra's ranges are accepted; --verify replays a config through "
                      "the installed ones.",
    "summary": "{errors} error(s), {warnings} warning(s), {notes} note(s)",
    "judged_for": "judged for {what}",
    "ds_json_alone": "(DeepSpeed JSON alone)",
    "as_verified": "(not installed: as verified)",
    "nothing_written": "{path}: {summary}; nothing written.",
    "invalid_answers": "{path}: invalid answers; nothing written.",
    "verify_failed": "verification against accelerate/deepspeed failed; nothing written.",
    "verified": "verified: accelerate and deepspeed read every value as answered.",
    "wrote": "wrote {path}",
    "unchanged": "unchanged {path}",
    "kept_previous": "kept the previous version as {path}",
    "launch_from": "launch from {folder}: {command}",
    "launch_with": "launch with: {command}",
    "carried_over": "carried over (the same intent, written the new way):",
    "round_trip_same": "round trip: converting the result back to {target} gives the same intent",
    "round_trip_changes": "round trip: converting the result back to {target} changes {diff} (the findings above say "
                          "why)",
    # convert
    "not_converted": "{path}: {before} -> {to}: not converted",
    "not_written": "(not written)",
    "convert_verified": "verified: accelerate and deepspeed read every value of the converted config as answered.",
    "convert_verify_failed": "verification against accelerate/deepspeed failed; nothing written",
    "convert_has_errors": "the converted config has errors; nothing written",
    "cannot_write": "cannot write to {out}: {error}",
    "source_has_errors": "{path} has {count} error(s), as `fsdpds-wizard check {path}` reports them; fix them first: "
                         "{why}; nothing written",
    "source_has_errors.convert": "converting it would carry them over or hide them",
    "source_has_errors.recommend": "suggestions based on it would carry them over or hide them",
    "write_refused": "refusing to replace existing file(s) with different content: {names} (use --force to replace "
                     "them; the old content is kept as NAME.bak, or the first free NAME.1.bak, NAME.2.bak, ...)",
    # recommend
    "base_not_used": "--base {name}: not used",
    "nothing_fits_not_written": "nothing fits, so nothing was written to {path}",
    "write_configs_with": "write the configs with: {command}",
    "its_parallelism": "its parallelism_config: {values}",
    # --headless --verify's progress (stderr): {text} is a said(...) sentence of wizard/core/verify
    "verify_progress": "verify: {text}… ({seconds} s so far)",
    # consolidate's result (stdout; the progress and refusals are said(...) sentences of wizard/run/consolidate.py)
    "consolidating": "consolidating {what}",
    "consolidated": "{file}: {size}, {params} parameters in {tensors} tensors ({dtypes})",
    "consolidated_from": "from: {what}",
    "consolidated_ran": "ran:  {tool}",
    "consolidated_same_as": "same as: {command}",
    "note": "note: {note}",
    # the diff's file headers (the review screen, the JSON editor)
    "diff_on_disk": "{name} (on disk)",
    "diff_to_write": "{name} (to write)",
    "diff_imported": "{name} (imported)",
    "diff_imported_unreadable": "{name} (imported: cannot read it now: {error})",
    "diff_now": "{name} (now)",
    "diff_edited": "{name} (edited)",
    "relative_ds_path": "(deepspeed_config_file: {ref} is relative to that folder, as accelerate resolves it, so the "
                        "configs work wherever that folder is cloned or moved; --ds-config-path absolute writes an "
                        "absolute path)",
    # --headless with several machines (the commands themselves and the files written stay as written)
    "multinode_each": "with {machines} machines, run one command on each:",
    "multinode_runner": "with several machines, run it once on the first host of the hostfile (DeepSpeed's runner "
                        "starts the others):",
    "wrote_hostfile": "wrote the DeepSpeed hostfile {path} for {hosts} (launch.hosts): put it on the host you launch "
                      "from, at the path the config reads ({where})",
    "wrote_hostfile_placeholders": "wrote the DeepSpeed hostfile {path} with placeholder host names "
                                   "(CHANGE-ME-host-N): put the machines' hostnames in it (or set launch.hosts), on "
                                   "the host you launch from, at the path the config reads ({where})",
    # presets
    "presets_use_one": "use one with: {command}",
    "no_presets": "no presets found in {path}",
    "no_presets_env": "no presets found in {path} (from {env})",
    # --headless with the Trainer as the loop
    "trainer_arguments": "the Trainer takes these from TrainingArguments (also in {path}; the DeepSpeed values they "
                         "fill are written \"auto\"): {arguments}",
}
"""Each line's English, by key; ``{name}`` placeholders are filled in (paths, counts, commands stay as they are)."""


def loop_words(loop: str | None, english: str) -> str:
    """A training loop's label (``wizard.core.context.LOOP_LABELS``: ``english``) in the current language."""
    return translate("lines", f"loop.{loop}", english)


def line(key: str, **values: object) -> str:
    """The line ``key`` in the current language, filled in (:func:`wizard.core.i18n.filled`). An ``OSError`` among
    the values is put in as the caller gives it: :func:`wizard.core.localized.phrases.os_words` puts its words in
    the language (this module stays below :mod:`wizard.core.localized`)."""
    return filled("lines", key, LINES[key], None, **values)
