"""Lesson links: a teacher's walk through the pages, one TOML file per lesson in lessons/.

    title = { en = "Why gradients vanish", zh = "为什么梯度会消失" }
    [[steps]]
    page = "hidden"                       # a page's url path
    params = { model = "default" }        # its URL parameters (widget values, the sentence)
    hide = ["hid_cell"]                   # controls not drawn (ui/widgets.py helpers): params or default
    checkpoint = "checkpoint_hidden_1"    # the checkpoint the step asks
    note = { en = "...", zh = "..." }     # one line for the learner (optional)

`?lesson=NAME` walks it with Next / Back. The file is the teacher's: every value is checked here
and a bad one is an InputError naming the file and the field.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rnnviz.errors import InputError

LESSON_DIR = Path(__file__).resolve().parents[2] / "lessons"
NAME = re.compile(r"^[a-z0-9_]{1,40}$")
WORD = re.compile(r"^[A-Za-z0-9_]{1,60}$")
LANGS = ("en", "zh")


@dataclass(frozen=True)
class Step:
    page: str
    params: tuple[tuple[str, str], ...]
    hide: tuple[str, ...]
    checkpoint: str
    note: tuple[tuple[str, str], ...]  # (lang, text)


@dataclass(frozen=True)
class Lesson:
    name: str
    title: tuple[tuple[str, str], ...]  # (lang, text)
    steps: tuple[Step, ...]

    def title_in(self, lang: str) -> str:
        return dict(self.title).get(lang) or dict(self.title)["en"]


def note_in(step: Step, lang: str) -> str:
    notes = dict(step.note)
    return notes.get(lang) or notes.get("en", "")


def lesson_names(folder: Path = LESSON_DIR) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.toml") if NAME.match(p.stem)) if folder.is_dir() else []


def _texts(value, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not isinstance(value.get("en"), str) or not value["en"].strip():
        raise InputError(f"{where} needs an English text (en = \"...\").", "lesson_bad", {"where": where})
    return tuple((lang, str(value[lang])) for lang in LANGS if isinstance(value.get(lang), str))


def parse_lesson(name: str, data: dict) -> Lesson:
    """A lesson from its parsed TOML, every field checked."""
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise InputError(f"Lesson {name}: no [[steps]].", "lesson_bad", {"where": f"{name}: steps"})
    out = []
    for i, s in enumerate(steps, 1):
        where = f"{name}: step {i}"
        if not isinstance(s, dict) or not isinstance(s.get("page"), str) or not NAME.match(s["page"]):
            raise InputError(f"{where}: page must be a page's url path.", "lesson_bad", {"where": where})
        params = s.get("params", {})
        hide = s.get("hide", [])
        cp = s.get("checkpoint", "")
        if not isinstance(params, dict) or not all(WORD.match(str(k)) for k in params):
            raise InputError(f"{where}: params must be a table of names.", "lesson_bad", {"where": where})
        if not isinstance(hide, list) or not all(isinstance(h, str) and WORD.match(h) for h in hide):
            raise InputError(f"{where}: hide must be a list of widget keys.", "lesson_bad", {"where": where})
        if not isinstance(cp, str) or (cp and not WORD.match(cp)):
            raise InputError(f"{where}: checkpoint must be a checkpoint key.", "lesson_bad", {"where": where})
        note = _texts(s["note"], f"{where}: note") if "note" in s else ()
        out.append(Step(s["page"], tuple((str(k), str(v)) for k, v in params.items()), tuple(hide), cp, note))
    return Lesson(name, _texts(data.get("title"), f"{name}: title"), tuple(out))


def load_lesson(name: str, folder: Path = LESSON_DIR) -> Lesson:
    """The lesson lessons/NAME.toml; an unknown name or a broken file is an InputError."""
    name = str(name or "")
    if name not in lesson_names(folder):
        raise InputError(f"There is no lesson named {name[:40]!r}.", "no_lesson", {"name": name[:40]})
    try:
        data = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise InputError(f"Lesson {name} cannot be read: {err}", "lesson_bad", {"where": name}) from err
    return parse_lesson(name, data)
