"""The config and answer rules whose message cites no claim yet (tests/unit/test_claims.py): may only shrink.

Their behaviour is tested (the rule tests, the check corpus replayed through the real libraries, --verify); what is
missing is the claim id that ties the message to its evidence in docs/claims.md."""
RULES_WITHOUT_CLAIMS = {
    "gpu-count-unknown",
    "linter-internal-error",
    "not-applicable",
}
