"""One verdict type for every "try it by hand" checker.

Every checker (embedding.check_answer, output.check_loss / check_grad, bptt.check_chain,
slots.check_jordan, hidden.check_exercise_verdict, exercises.gates.check_verdict; the number
ones built on exercises.checker) answers with a Verdict, so the page has one
exercise widget (ui.widgets.exercise) that shows it the same way everywhere: right or wrong, the
checker's hint for the first wrong answer, and the solution on request.

The hint is English text today (`message`); `hint_key` + `values` name the same hint in the
string catalogue so that the UI can show it in the learner's language once it is translated.
For old callers a Verdict also unpacks like the tuple (ok, message) and has `.correct`.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Verdict:
    ok: bool | None            # None: nothing answered yet
    message: str = ""          # the checker's hint (or "Right: ..."), plain text
    hint_key: str = ""         # catalogue key of that hint ("" = use message)
    values: dict = field(default_factory=dict)  # its placeholders
    solution: str | None = None  # the worked answer, shown on "Show the solution"
    more: tuple = ()           # the other wrong parts' Verdicts: every slip is reported, not the first

    @property
    def correct(self) -> bool | None:
        """The old name (output.Feedback.correct)."""
        return self.ok

    def __iter__(self):
        """`ok, message = check(...)`: the old (bool, str) protocol keeps working."""
        return iter((self.ok, self.message))

    def __getitem__(self, i: int):
        return (self.ok, self.message)[i]


def verdict(ok: bool | None, message: str, solution: str | None = None, **values) -> Verdict:
    """Shorthand used by checkers that still return (ok, message)."""
    return Verdict(ok, message, values=values, solution=solution)
