"""The bundled presets' descriptions (the comment header of each shipped ``templates/*.yaml``, as
``wizard.core.presets.describe`` reads it), keyed by preset name: ``fsdpds-wizard presets`` shows them in the
language (:func:`wizard.core.presets.description`). Read from the shipped files themselves (one place for the English:
the header a user opens); a description that is not the shipped English (a preset of the user's own
``FSDPDS_TEMPLATES``, or an edited one) is shown as written. Translated in the part ``screen-presets``, keyed by the
English's fingerprint: an edited shipped header shows as stale there until its translation follows."""
from __future__ import annotations


def _shipped() -> dict[str, str]:
    from ...presets import bundled_dir, describe

    return {path.stem: describe(path) for path in sorted(bundled_dir().glob("*.yaml"))}


WORDS: dict[str, str] = _shipped()
"""Each bundled preset's description, by its name (the file name without ``.yaml``)."""
