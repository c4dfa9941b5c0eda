"""The YAML parser's own words (see :mod:`wizard.core.localized.screens`): what PyYAML says when an input file is not
valid YAML (its scanner's, parser's, composer's and safe constructor's problems, as wizard/core/inputs.py shows them
after ``not valid YAML (line N, column M):``). Each key is PyYAML's English with its ``%r`` / ``%s`` / ``%d`` written
as ``{name}``; :mod:`wizard.core.localized.parsers` matches a problem against them. The quoted characters, the tokens
(``'<stream end>'``), tags, anchors and the line and column stay as PyYAML and the file have them."""
from __future__ import annotations

WORDS: dict[str, str] = {english: english for english in (
    # around the problem (wizard/core/inputs.py: _yaml_problem)
    "not valid YAML (line {line}, column {column}): {problem}",
    # the scanner
    "found character {char} that cannot start any token",
    "could not find expected ':'",
    "mapping keys are not allowed here",
    "mapping values are not allowed here",
    "sequence entries are not allowed here",
    "expected alphabetic or numeric character, but found {char}",
    "expected a digit or ' ', but found {char}",
    "expected a digit or '.', but found {char}",
    "expected a digit, but found {char}",
    "expected ' ', but found {char}",
    "expected a comment or a line break, but found {char}",
    "expected '!', but found {char}",
    "expected '>', but found {char}",
    "expected URI, but found {char}",
    "expected URI escape sequence of 2 hexadecimal numbers, but found {char}",
    "expected chomping or indentation indicators, but found {char}",
    "expected indentation indicator in the range 1-9, but found 0",
    "found unexpected end of stream",
    "found unexpected document separator",
    "found unknown escape character {char}",
    "expected escape sequence of {count} hexadecimal numbers, but found {char}",
    # the parser
    "expected '<document start>', but found {token}",
    "expected the node content, but found {token}",
    "expected <block end>, but found {token}",
    "expected ',' or ']', but got {token}",
    "expected ',' or '}}', but got {token}",
    "found undefined tag handle {handle}",
    "found duplicate YAML directive",
    "found incompatible YAML document (version 1.* is required)",
    "duplicate tag handle {handle}",
    # the composer
    "found undefined alias {alias}",
    "found duplicate anchor {anchor}",
    "but found another document",
    # the safe constructor
    "could not determine a constructor for the tag {tag}",
    "expected a mapping node, but found {kind}",
    "expected a scalar node, but found {kind}",
    "expected a sequence node, but found {kind}",
    "found unhashable key",
    "expected a mapping for merging, but found {kind}",
    "expected a mapping or list of mappings for merging, but found {kind}",
    "expected a sequence, but found {kind}",
    "expected a mapping of length 1, but found {kind}",
    "expected a single mapping item, but found {count} items",
    "failed to convert base64 data into ascii: {error}",
    "failed to decode base64 data: {error}",
)}
"""PyYAML's English (the key) -> the English words (the same)."""

AROUND = "not valid YAML (line {line}, column {column}): {problem}"
"""The sentence the problem stands in (the others are problems)."""
