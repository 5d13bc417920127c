"""Text that came from a link, an upload or a model file, made safe to show in Markdown.

Streamlit renders messages (st.warning, st.error, st.markdown) as Markdown with LaTeX
(`$...$`), colour directives (`:red[...]`), emoji shortcodes and autolinks. A stranger's text
put there unescaped speaks in the app's voice: `![i](https://x/i.png)` makes the visitor's
browser fetch an image, `[Sign in](https://x)` becomes a link inside our own warning.
CommonMark lets a backslash escape any ASCII punctuation, so escaping every one of them (and
flattening line breaks, which would start new blocks) leaves nothing that can start a construct.
"""
from __future__ import annotations

import re
import string

_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")
_BREAKS = re.compile(r"[\r\n\t\f\v\u0085\u2028\u2029]+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
ELLIPSIS = "…"
WJ = "\u2060"  # WORD JOINER: invisible, breaks autolink patterns
_WWW = re.compile(r"(?i)\bwww\.")


def short(text, n: int = 40) -> str:
    """At most n characters of str(text), with '…' when something was cut (n >= 1)."""
    text = str(text)
    if len(text) <= n:
        return text
    return text[: max(0, n - 1)] + ELLIPSIS


def defuse_autolinks(text: str) -> str:
    """Streamlit's Markdown (remark-gfm) turns bare URLs, www. names and e-mail addresses into
    links by a search over the *parsed* text, after backslash escapes are resolved, so escaping
    cannot stop it. A WORD JOINER (U+2060, invisible, no width) inside "://", after "www" and
    before "@" breaks those patterns while the text reads the same."""
    text = text.replace("://", ":" + WJ + "//").replace("@", WJ + "@")
    return _WWW.sub(lambda m: m.group(0)[:-1] + WJ + ".", text)


def escape_md(text) -> str:
    """str(text) shown literally inside Markdown: no link, image, HTML, LaTeX, heading, list,
    code, directive, entity or autolink can start. Line breaks become spaces; control characters
    go; see defuse_autolinks for the invisible character added to URLs."""
    flat = defuse_autolinks(_CONTROL.sub("", _BREAKS.sub(" ", str(text))))
    return _PUNCT.sub(lambda m: m.group(1) if _intraword(flat, m.start()) else "\\" + m.group(1),
                      flat)


def _intraword(text: str, i: int) -> bool:
    """An underscore between two letters or digits (train_steps) can neither open nor close
    emphasis in CommonMark, so it stays as typed: names read the same in tests and on screen."""
    return (text[i] == "_" and 0 < i < len(text) - 1
            and text[i - 1].isalnum() and text[i + 1].isalnum())


def quote(text, n: int = 40) -> str:
    """A stranger's value for a message: shortened first, then escaped (escaping adds
    backslashes, so it must come last or a cut could split an escape)."""
    return escape_md(short(text, n))


def code_span(text) -> str:
    """str(text) as an inline Markdown code span, shown exactly as it is (a code span takes no
    escapes, no HTML, no LaTeX and no link): fenced by one backtick more than the longest run
    inside, padded with a space when it starts or ends with a backtick. Line breaks become
    spaces and control characters go, as in escape_md."""
    flat = _CONTROL.sub("", _BREAKS.sub(" ", str(text)))
    longest = max((len(m) for m in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
