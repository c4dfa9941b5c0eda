"""The words of the review screen (see :mod:`wizard.core.localized.screens`): its title, tabs, the diff's and the
launch line's headings, the status line, its notifications and the replace dialog. The file names, the launch
command, the diff itself (its ``--- name (on disk)`` headers are the core's lines), the findings' messages (translated
as findings) and the severity words stay as they are."""
from __future__ import annotations

WORDS: dict[str, str] = {
    # the frame
    "title": "Review",
    "title_files": "· {files} files: {new} new, {changed} changed, {same} same",
    "out_label": "Output folder (ctrl+o)",
    "out_placeholder": "folder for the files",
    "findings": "Findings",
    "findings_count": "Findings ({count})",
    "machines": "Machines",
    "diff": "Diff",
    "diff_count": "Diff ({changed} changed)",
    "diff_import_changed": "Diff (import: changed; folder: {changed} changed)",
    "diff_import_same": "Diff (import: same; folder: {changed} changed)",
    "state_new": "new",
    "state_changed": "changed",
    "state_same": "same",
    "state_unreadable": "unreadable",
    # the findings
    "no_findings": "No findings.",
    "fix": "fix: {fix}",
    "error_blocks": "{count} error block writing (ctrl+n goes to the first one):",
    "errors_block": "{count} errors block writing (ctrl+n goes to the first one):",
    # the Diff tab
    "against_import": "Against the imported file:",
    "against_imports": "Against the imported files:",
    "imports_identical": "The imported files and the files to write are identical.",
    "against_folder": "Against the output folder {out}:",
    "nothing_same": "Nothing to compare: the files on disk are identical.",
    "nothing_yet": "Nothing to compare: no files in {out} yet.",
    # the Machines tab (comment lines of a shell script: the code puts "# " before them)
    "machines_runner": "Run once: DeepSpeed's runner starts every machine listed in the hostfile.",
    "machines_each": "{count} machines: run one command on each, with its machine rank.",
    "machines_hostfile": "The hostfile tab is written as {hostfile}; the config reads it at {where}.",
    "slurm_head": "SLURM batch script (sbatch it; one launcher per node, rank and address from SLURM):",
    "slurm_none": "No SLURM batch script for this folder: {error}",
    # the launch line
    "launch": "Launch:",
    "launch_from": "Launch from {folder}:",
    "trainer": "Trainer:",
    "trainer_note": "(training_arguments.json; the DeepSpeed values they fill are \"auto\")",
    # the status line and the notifications
    "not_ready": "Not ready: fix the errors first (Escape goes back).",
    "ready": "Ready: ctrl+s writes {count} files to the folder above",
    "ready_replacing": ("Ready: ctrl+s writes {count} files to the folder above; asks before replacing {names} "
                        "(old kept as .bak)"),
    "no_error": "No error to go to.",
    "error_untied": "This error is not tied to one setting.",
    "copied": "Copied the launch command (your terminal must allow clipboard access).",
    "errors_block_write": "{count} error(s) block writing.",
    "not_a_folder": "{out} exists and is not a folder.",
    "cannot_write": "cannot write to {out}: {error}",
    "nothing_written": "Nothing written.",
    "wrote_one": "Wrote {count} file to {out}",
    "wrote": "Wrote {count} files to {out}",
    "up_to_date": "{count} already up to date",
    "kept": "kept {names}",
    "then": "{first}; {then}",
    "sentence": "{text}.",
    # the replace dialog
    "replace_title": "Replace existing files?",
    "replace_message": ("These files in {out} have other content:\n{names}\n\nReplace them? The old versions are kept "
                        "next to them as NAME.bak. The Diff tab shows what changes."),
    "replace_yes": "Replace (y)",
    "replace_no": "Cancel (n)",
}
"""Key -> the English words."""
