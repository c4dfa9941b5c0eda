"""What `check` tells about one config must be one true account: the keys a fix asks to delete are the ones to
delete, a file's kind follows what the file is, a value accelerate launch cannot use is an error that names it,
and two findings never say opposite things about the same value (issue 21, items 11, 14, 15, 25)."""
from __future__ import annotations

from test_config_rules import dsj, filemode, run


def test_file_with_inline_keys_names_only_the_keys_to_delete():
    f = next(f for f in run(filemode({"zero_stage": 3}, mixed_precision="no"), dsj())
             if f.rule == "deepspeed-file-with-inline-keys")
    # the file is part of the fault, so it is among the keys; the message lists what to delete, not the file
    assert "deepspeed_config.deepspeed_config_file" in f.keys
    listed = f.message.split("also sets ", 1)[1].split(" (even", 1)[0]
    assert listed == "`deepspeed_config.zero_stage`, `mixed_precision`"
    assert "Delete these keys" in f.fix


def test_unicode_class_names_are_quoted_as_text_not_as_escapes():
    """Issue 21, item 26: a value quoted in a message came out as JSON escapes, surrogate pairs for an emoji."""
    from test_config_rules import fsdp

    from wizard.core.convert.common import show_value
    from wizard.core.lint.base import fmt

    assert fmt("🦙Block,Ünïcode") == '"🦙Block,Ünïcode"'
    assert fmt(["🦙Block"]) == '["🦙Block"]'
    assert show_value(["🦙Block", "Ünïcode Layer"]) == '["🦙Block", "Ünïcode Layer"]'
    f = next(f for f in run(fsdp(fc={"fsdp_transformer_layer_cls_to_wrap": "🦙Block, Ünïcode"}))
             if f.rule == "fsdp-wrap-classes-invalid")
    assert '"🦙Block, Ünïcode"' in f.message and "\\u" not in f.message
