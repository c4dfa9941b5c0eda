"""The libraries' tables, in one home: which keys accelerate, its plugins and DeepSpeed read, the environment variables
``accelerate launch`` exports them as, their defaults, how "auto" is filled, and in which release each arrived.

Each table is stated once, here, with the code it comes from (accelerate 1.15, DeepSpeed 0.19.8, transformers 5.24:
``wizard.core.versions.VERIFIED_AGAINST``); what is derived from one (an inverse, a union) is computed from it, never
restated. Everything else reads them from here: the config rules (``lint``), the effective model (``effective``), the
memory estimate, ``--verify``, the catalogue. ``tests/unit/test_library_tables.py`` checks that no other module of
``wizard/`` states them, and ``tests/verify/test_library_defaults.py`` reads the defaults back from the installed
libraries.

* :mod:`.launcher`: the accelerate config file and ``accelerate launch``: top-level fields, the keys of each section,
  which ``distributed_type`` reads which section;
* :mod:`.fsdp`: the fsdp_config keys, their environment variables, the launcher's and the plugin's defaults;
* :mod:`.deepspeed`: the inline deepspeed_config keys, their environment variables and paths in the DeepSpeed dict,
  accelerate's DeepSpeed defaults, DeepSpeed's own config defaults;
* :mod:`.auto`: who fills which "auto" value, and with what (accelerate, its dummy optimizer, the HF Trainer);
* :mod:`.accelerate_versions`: the accelerate release each key arrived in (or left);
* :mod:`.trainer_versions`: what the HF Trainer fills, per transformers release.

Pure data and tiny helpers: the package imports nothing of the wizard, so every floor may use it
(docs/architecture.md).
"""
