"""Text laid out by terminal cells, not characters: a CJK character (and a full-width form) takes two cells, so
Traditional Chinese wraps at half the characters of English. Chinese has no spaces, so a line may break between any
two CJK characters (not before a closing mark such as ``，`` or ``）``); runs of other characters (a config key, a
number, a Turkish word) break only at spaces, and are cut only when longer than a whole line."""
from __future__ import annotations

_NO_LINE_START = set("，。、；：！？）」』》〉】,.;:!?)]}%")
"""Marks that may not begin a line (they stay with the character before them)."""
_NO_LINE_END = set("（「『《〈【")
"""Wide opening marks: they stay with the character after them."""


def char_width(ch: str) -> int:
    if ch.isascii():
        return 1
    import unicodedata  # only for text beyond ASCII: English start-ups never load it

    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(text: str) -> int:
    """The cells ``text`` takes on a terminal."""
    if text.isascii():
        return len(text)
    return sum(char_width(ch) for ch in text)


def ljust(text: str, cells: int) -> str:
    """``text`` padded with spaces to ``cells`` cells (str.ljust counts characters)."""
    return text + " " * max(0, cells - width(text))


def _is_wide(ch: str) -> bool:
    return char_width(ch) == 2


def has_wide(text: str) -> bool:
    """Whether ``text`` holds a character two cells wide (Chinese): such text breaks between characters and needs
    :func:`wrap`'s own layout; any other (English, Turkish) wraps as :mod:`textwrap` and Rich do."""
    return not text.isascii() and any(_is_wide(ch) for ch in text if not ch.isascii())


def _pieces(text: str) -> list[str]:
    """The units a line may break between: spaces, each wide character, and runs of other characters; a mark that
    may not start a line sticks to the piece before it, one that may not end a line to the piece after it."""
    out: list[str] = []
    run = ""
    opening = ""
    for ch in text:
        if ch == " ":
            if run:
                out.append(run)
                run = ""
            out.append(" ")
        elif ch in _NO_LINE_START and run:
            run += ch
        elif ch in _NO_LINE_START and out and out[-1] != " ":
            out[-1] += ch
        elif ch in _NO_LINE_END and _is_wide(ch):
            if run:
                out.append(run)
                run = ""
            opening += ch
        elif _is_wide(ch):
            if run:
                out.append(run)
                run = ""
            out.append(opening + ch)
            opening = ""
        else:
            run += opening + ch
            opening = ""
    if run or opening:
        out.append(run + opening)
    return out


def _cut(piece: str, cells: int) -> list[str]:
    """A piece longer than a line, cut into lines of at most ``cells`` cells."""
    lines, line, used = [], "", 0
    for ch in piece:
        w = char_width(ch)
        if used + w > cells and line:
            lines.append(line)
            line, used = "", 0
        line += ch
        used += w
    if line:
        lines.append(line)
    return lines


def wrap(text: str, cells: int, initial_indent: str = "", subsequent_indent: str = "") -> list[str]:
    """One paragraph (newlines count as spaces, as textwrap treats them) in lines of at most ``cells`` cells; no
    line starts or ends with a space. ``[]`` for empty text, as :func:`textwrap.wrap`. Text without wide characters
    (English, Turkish) is wrapped by :func:`textwrap.wrap` itself, so it reads exactly as before."""
    if not has_wide(text):
        import textwrap

        return textwrap.wrap(text, cells, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    text = " ".join(text.split())
    if not text:
        return []
    lines: list[str] = []
    indent = initial_indent
    line, used = indent, width(indent)
    for piece in _pieces(text):
        w = width(piece)
        if piece == " ":
            if line.strip():
                line, used = line + " ", used + 1
            continue
        if used + w > cells and line.strip():
            lines.append(line.rstrip())
            indent = subsequent_indent
            line, used = indent, width(indent)
        room = cells - used
        if w > room:
            parts = _cut(piece, max(1, room))
            for part in parts[:-1]:
                lines.append((line + part).rstrip())
                indent = subsequent_indent
                line, used = indent, width(indent)
            piece = parts[-1]
            w = width(piece)
        line, used = line + piece, used + w
    if line.strip():
        lines.append(line.rstrip())
    return lines
