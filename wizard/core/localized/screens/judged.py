"""The words of the choice of library versions the answers are judged for (wizard/tui/shared/judged.py: the
review's and the help's "Judged for ..." line, the palette's "Judge for ..." entries), and of the command palette's
entries that Textual itself adds (keys ``textual_*``: Theme, Quit, Keys, Maximize, Minimize, Screenshot; see
:mod:`wizard.core.localized.screens`). Library names, versions and flags stay as written."""
from __future__ import annotations

WORDS: dict[str, str] = {
    # what each choice is called, and what it judges for (the palette's "Judge for ..." entries)
    "mode_verified": "the verified versions",
    "mode_given": "the versions given on the command line",
    "mode_installed": "the installed libraries",
    "help_verified": "the versions the wizard's knowledge was verified against",
    "help_given": "the --accelerate/--deepspeed/--transformers-version flags' versions",
    "help_installed": "accelerate, deepspeed, transformers and torch as installed here, which F5 and ctrl+l use",
    "judge_for": "Judge for {mode}",
    "judge_for_help": "Check the answers for {what} (now: {now}; F1 lists them)",
    # where a version comes from (the flag itself, --transformers-version, is written as it is)
    "source_installed": "installed",
    "source_verified": "verified default",
    "source_not_installed": "not installed: verified default",
    "by_source": "{versions} ({source})",
    # the line in the review's findings, the help and the notification after a switch
    "judged_verified": "Judged for the verified versions: {versions}. {run_note}",
    "judged": "Judged for {versions}. {run_note}",
    "run_note": "F5 and ctrl+l judge for the installed ones (the run uses them).",
    "judged_now": "{text} (F1 shows it again)",
    "help_switch": "ctrl+p: \"{judge_for}\" switches.",
    # the palette's entries Textual adds (App.get_system_commands), by their English
    "textual_theme": "Theme",
    "textual_theme_help": "Change the current theme",
    "textual_quit": "Quit",
    "textual_quit_help": "Quit the application as soon as possible",
    "textual_keys": "Keys",
    "textual_keys_hide_help": "Hide the keys and widget help panel",
    "textual_keys_show_help": "Show help for the focused widget and a summary of available keys",
    "textual_minimize": "Minimize",
    "textual_minimize_help": "Minimize the widget and restore to normal size",
    "textual_maximize": "Maximize",
    "textual_maximize_help": "Maximize the focused widget",
    "textual_screenshot": "Screenshot",
    "textual_screenshot_help": "Save an SVG 'screenshot' of the current screen",
}
"""Key -> the English words."""

TEXTUAL_KEYS: dict[str, str] = {english: key for key, english in WORDS.items() if key.startswith("textual_")}
"""Textual's English words of a palette entry -> their key here (an entry a later Textual adds stays English)."""
