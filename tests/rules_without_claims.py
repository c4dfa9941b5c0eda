"""The config and answer rules whose message cites no claim yet (tests/unit/test_claims.py): may only shrink.

Their behaviour is tested (the rule tests, the check corpus replayed through the real libraries, --verify); what is
missing is the claim id that ties the message to its evidence in docs/claims.md."""
RULES_WITHOUT_CLAIMS = {
    "ds-json-auto-not-filled",
    "ds-json-auto-nvme-path",
    "ds-json-auto-offload-device",
    "ds-json-auto-precision",
    "ds-json-auto-stage",
    "ds-json-auto-trainer-only",
    "ds-json-batch-invalid",
    "ds-json-batch-mismatch",
    "ds-json-batch-missing",
    "ds-json-bfloat16-shadowed",
    "ds-json-bool-as-string",
    "ds-json-deprecated-and-new-key",
    "ds-json-deprecated-key",
    "ds-json-fixed-batch-auto-micro",
    "ds-json-ignored-subkey",
    "ds-json-ignored-subkey-harmless",
    "ds-json-invalid-value",
    "ds-json-not-mapping",
    "ds-json-removed-feature",
    "ds-json-scalar-type",
    "ds-json-steps-per-print-overridden",
    "ds-json-unknown-key",
    "ds-json-unknown-top-level-key",
    "ds-json-value-coerced",
    "ds-json-zero-optimization-missing",
    "gpu-count-unknown",
    "linter-internal-error",
    "not-applicable",
}
