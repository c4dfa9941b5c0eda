"""What may stand for a machine (a host name or an address) and what a remote shell would read again.

Both reach places where they are read as more than a name: DeepSpeed's ``pdsh`` runner pastes the master address,
the host names, the script and its arguments into one command line that the remote shell reads, and its ssh
reachability check puts the first host of the hostfile on ssh's command line, where a name starting with ``-`` is an
option. So a host is an IP address (v4 or v6) or an RFC 1123 host name, and nothing else; and on the launchers that
go through a remote shell, a script or argument must be a word the shell reads back unchanged.

Stdlib only (and the marker :func:`wizard.core.i18n.said`); the ground floor of the core.
"""
from __future__ import annotations

import ipaddress
import re

from .i18n import said

_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_SHELL_WORD = re.compile(r"^[A-Za-z0-9_@+=:,./-]+$")
"""A word a POSIX shell reads back as itself: no spaces, quotes, $, `, ;, &, |, <, >, (, ), *, ?, [, ], ~, #, !,
{, }, backslash or newline; nor '%', which pdsh replaces in its command (%n, %h)."""


def host_problem(value: str, name: str = "") -> str | None:
    """None when ``value`` is an IP address or an RFC 1123 host name; else what is wrong with it, in words, after
    ``name`` (``"'-x': "`` where a list of hosts names each; ``""``: the words alone). Each reason is a ``said(...)``
    sentence: shown in another language, translated, the name and the characters as written."""
    if not value:
        return said(f"{name}it is empty")
    if value.startswith("-"):
        return said(f"{name}it starts with '-', so ssh and pdsh would read it as an option")
    try:
        ipaddress.ip_address(value)
        return None
    except ValueError:
        pass
    host = value[:-1] if value.endswith(".") else value  # a fully qualified name may end with a dot
    if len(host) > 253:
        return said(f"{name}it is longer than 253 characters")
    bad = sorted({c for c in host if not (c.isascii() and (c.isalnum() or c in "-."))})
    if bad:
        chars = ", ".join(repr(c) for c in bad)
        return said(f"{name}it holds {chars}: a host name has only letters, digits, '-' and '.'")
    for label in host.split("."):
        if not _LABEL.match(label):
            if not label:
                return said(f"{name}it has an empty part between dots")
            if len(label) > 63:
                return said(f"{name}the part {label[:20]!r}... is longer than 63 characters")
            return said(f"{name}the part {label!r} starts or ends with '-'")
    return None


def is_shell_word(value: str) -> bool:
    """True when a remote shell reads ``value`` back as itself (so it may be pasted unquoted)."""
    return bool(_SHELL_WORD.match(value))
