"""Secrets out of what the wizard stores: one redaction, used for everything under ``runs/`` and the run's display.

A run's output can carry secrets the user never meant to write down: on a multi-machine DeepSpeed launch through
its runner (pdsh, MPI, slurm, nossh) accelerate appends the whole environment to ``.deepspeed_env`` and the runner
logs its command line, ``export HF_TOKEN=...; export WANDB_API_KEY=...`` included; a script may print
``os.environ``; a token may be passed as a script argument. :class:`Redactor` replaces, wherever they appear:

* the value of every variable of the environment whose name looks secret (:func:`is_secret_name`) and whose value
  is long enough to be one (:data:`MIN_SECRET_LEN` characters; ``true`` or ``1`` is nobody's secret);
* the value after a secret-looking name: ``NAME=value``, ``NAME="value"``, ``"name": "value"``, ``'name': 'value'``,
  ``--name value`` (also names it never saw in the environment, such as the ones in a ``~/.deepspeed_env``);
* values shaped like well-known tokens (Hugging Face ``hf_...``, AWS access key ids, GitHub tokens) and the
  password in a URL (``https://user:PASSWORD@host``);

with :data:`REDACTED`. Text keeps every other byte: a log is decoded with ``surrogateescape`` and encoded back.
Stdlib only; the ground floor of the core (docs/security.md, section i22-secrets).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_LEN = 8
"""Shorter values of secret-named variables are not searched for in the text (a flag such as ``1`` or ``true``
would be replaced everywhere); after a secret-looking name they are still replaced."""

_SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "ACCESSKEY", "PRIVATEKEY",
                 "AUTHKEY")
_KEY_HINT = r"(?:token(?![a-z])|key(?![a-z])|secret|passw|credential|aws_)"
"""What a candidate name must contain before :func:`is_secret_name` is asked (keeps the scan cheap): ``TOKEN`` or
``KEY`` not followed by a letter (``TOKENIZERS``, ``tokens_per_s`` and ``keyboard`` are no candidates)."""
_HINT = re.compile(_KEY_HINT, re.IGNORECASE)
_EOL = re.compile(r"[\n\r]")
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_HINT_WORDS = ("token", "key", "secret", "passw", "credential", "aws_")
"""Looked for with str's own search in the lowered text first: a chunk of ordinary output costs a few scans."""
_SHAPE_HINTS = ("hf_", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox")
_NAME = r"(?:[A-Za-z_][\w.-]*?)?" + _KEY_HINT + r"[\w.-]*"

_ASSIGN = re.compile(
    r"(?P<lead>(?<![\w.-])(?:--?)?)(?P<key>" + _NAME + r")"
    r"(?P<sep>=|\s*:\s+)"
    r"(?:(?P<q>[\"'])(?P<qv>.*?)(?P=q)|(?P<v>[^\s;,&|'\"()\[\]{}]+))",
    re.IGNORECASE)
"""``NAME=value`` (an export, an argument ``--name=value``, a .deepspeed_env line), ``NAME: value``."""
_QUOTED_KEY = re.compile(
    r"(?P<kq>[\"'])(?P<key>" + _NAME + r")(?P=kq)(?P<sep>\s*[:=]\s*)"
    r"(?:(?P<q>[\"'])(?P<qv>(?:\\.|(?!(?P=q)).)*)(?P=q)|(?P<v>[^\s,}\]]+))",
    re.IGNORECASE)
"""``"name": "value"`` (JSON) and ``'name': 'value'`` (a printed Python dict, ``os.environ``)."""
_FLAG_SPACE = re.compile(r"(?P<lead>(?<!\S)--?)(?P<key>" + _NAME + r")(?P<sep>[ \t]+)(?P<v>[^\s\-][^\s;,]*)",
                         re.IGNORECASE)
"""``--name value`` on a command line."""
_SHAPES = re.compile(
    r"\b(?:hf_[A-Za-z0-9]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,})\b")
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)(?P<pw>[^\s@/]+)(?=@)", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """A name that says its value is a secret: ``*TOKEN`` (a word ending in TOKEN: ``HF_TOKEN``, ``--token``, not
    ``TOKENIZERS_PARALLELISM``), ``*SECRET*``, ``*PASSWORD*``, ``*API_KEY*``, ``*ACCESS_KEY*``, ``*CREDENTIAL*``,
    ``*_KEY`` and every ``AWS_*``. Case, dashes and underscores do not matter (``--hf-token``)."""
    upper = name.strip().lstrip("-").upper().replace("-", "_").replace(".", "_")
    if not upper:
        return False
    if upper.startswith("AWS_"):
        return True
    parts = [p for p in upper.split("_") if p]
    squeezed = "".join(parts)
    if any(w in squeezed for w in _SECRET_WORDS):
        return True
    if any(p.endswith("TOKEN") for p in parts):
        return True
    return len(parts) > 1 and parts[-1] == "KEY"


def secret_values(env: Mapping[str, str] | None) -> list[str]:
    """The values of ``env``'s secret-named variables worth searching for, longest first. ``AWS_*`` names count only
    when they say secret otherwise (``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``): ``AWS_REGION``'s value is a
    word that appears in ordinary text."""
    found = set()
    for name, value in (env or {}).items():
        value = str(value).strip()
        if len(value) < MIN_SECRET_LEN or not is_secret_name(name):
            continue
        if name.upper().startswith("AWS_") and not is_secret_name(name[4:]):
            continue
        found.add(value)
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Replaces secrets in text, bytes and JSON-like values; ``env``: whose secret values to look for (default:
    this process's environment)."""

    def __init__(self, env: Mapping[str, str] | None = None, extra_env: Iterable[Mapping[str, str]] = ()) -> None:
        values = set(secret_values(os.environ if env is None else env))
        for more in extra_env:
            values.update(secret_values(more))
        self._values = sorted(values, key=len, reverse=True)  # longest first: one that holds another goes whole

    # ---------------------------------------------------------------- text
    def text(self, text: str) -> str:
        if not text:
            return text
        for value in self._values:  # str's own search: far cheaper than a regex of alternatives
            if value in text:
                text = text.replace(value, REDACTED)
        text = self._name_forms(text)
        if any(h in text for h in _SHAPE_HINTS):
            text = _SHAPES.sub(REDACTED, text)
        if "://" in text:
            text = _URL_PASSWORD.sub(lambda m: m.group("head") + REDACTED, text)
        return text

    def _name_forms(self, text: str) -> str:
        """The name forms (``NAME=value``, ...), tried on the lines that hold a candidate name only."""
        low = text.lower()
        if len(low) != len(text):  # a few characters lower to two ('İ'): keep the positions, lower ASCII only
            low = text.translate(_ASCII_LOWER)
        hits = []
        for word in _HINT_WORDS:
            whole = word in ("token", "key")  # not TOKENIZERS, tokens_per_s, keyboard
            i = low.find(word)
            while i >= 0:
                after = low[i + len(word):i + len(word) + 1]
                if not (whole and after.isalpha() and after.isascii()):
                    hits.append(i)
                i = low.find(word, i + 1)
        if not hits:
            return text
        out, pos = [], 0
        for i in sorted(hits):
            if i < pos:  # on a line already done
                continue
            start = max(low.rfind("\n", pos, i), low.rfind("\r", pos, i)) + 1  # never further back than pos
            eol = _EOL.search(low, i)
            end = eol.start() if eol else len(low)
            line = text[start:end]
            out += [text[pos:start], self._names(line) if _HINT.search(line) else line]
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _names(self, line: str) -> str:
        line = _ASSIGN.sub(self._assign, line)
        line = _QUOTED_KEY.sub(self._quoted, line)
        return _FLAG_SPACE.sub(self._flag, line)

    def bytes(self, data: bytes) -> bytes:
        """The same for raw output: bytes that are not UTF-8 come back unchanged."""
        return self.text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    @staticmethod
    def _assign(m: re.Match) -> str:
        if not is_secret_name(m.group("key")):
            return m.group(0)
        if m.group("q") is not None:
            value = m.group("qv")
            if not value or value == REDACTED:
                return m.group(0)
            return f"{m.group('lead')}{m.group('key')}{m.group('sep')}{m.group('q')}{REDACTED}{m.group('q')}"
        value = m.group("v")
        if value == REDACTED or value.startswith(REDACTED):
            return m.group(0)
        if m.group("sep") != "=" and (len(value) < MIN_SECRET_LEN or value.replace(".", "").isdigit()):
            return m.group(0)  # "token: 512" in prose; after '=' any value goes
        return f"{m.group('lead')}{m.group('key')}{m.group('sep')}{REDACTED}"

    @staticmethod
    def _quoted(m: re.Match) -> str:
        if not is_secret_name(m.group("key")):
            return m.group(0)
        head = f"{m.group('kq')}{m.group('key')}{m.group('kq')}{m.group('sep')}"
        if m.group("q") is not None:
            if not m.group("qv") or m.group("qv") == REDACTED:
                return m.group(0)
            return f"{head}{m.group('q')}{REDACTED}{m.group('q')}"
        if m.group("v") in ("null", "None", "true", "false", REDACTED):
            return m.group(0)
        return head + REDACTED

    @staticmethod
    def _flag(m: re.Match) -> str:
        if not is_secret_name(m.group("key")) or m.group("v").startswith(REDACTED):
            return m.group(0)
        return f"{m.group('lead')}{m.group('key')}{m.group('sep')}{REDACTED}"

    # ---------------------------------------------------------------- values
    def argv(self, argv: Iterable[Any]) -> list[Any]:
        """An argument list: every token redacted, and the token after a secret-looking ``--name`` replaced whole."""
        out: list[Any] = []
        take_next = False
        for token in argv:
            if take_next and isinstance(token, str) and not token.startswith("-"):
                out.append(REDACTED)
                take_next = False
                continue
            take_next = False
            if isinstance(token, str):
                if token.startswith("-") and "=" not in token and is_secret_name(token):
                    take_next = True
                out.append(self.text(token))
            else:
                out.append(self.value(token))
        return out

    def value(self, value: Any) -> Any:
        """A JSON-like value: strings redacted, a secret-named key's scalar value replaced, lists read as argument
        lists (:meth:`argv`)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            out = {}
            for k, v in value.items():
                if isinstance(k, str) and is_secret_name(k) and isinstance(v, (str, int, float)) \
                        and not isinstance(v, bool) and v != "":
                    out[k] = REDACTED
                else:
                    out[k] = self.value(v)
            return out
        if isinstance(value, (list, tuple)):
            return self.argv(value)
        return value


def redact(value: Any, env: Mapping[str, str] | None = None) -> Any:
    """:meth:`Redactor.value` with the secrets of ``env`` (default: this process's environment)."""
    return Redactor(env).value(value)


__all__ = ["MIN_SECRET_LEN", "REDACTED", "Redactor", "is_secret_name", "redact", "secret_values"]
