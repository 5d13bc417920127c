"""The one exception type a page catches and shows as a message."""


class InputError(ValueError):
    """Bad user input: the message is written for the learner and is shown as is.

    `key` (optional) names the message in the interface's string catalogue (locales/*.toml,
    under "errors.<key>") and `values` fills its placeholders, so the app can show it in the
    learner's language; str(err) stays the English text for plain Python callers."""

    def __init__(self, message: str = "", key: str = "", values: dict | None = None):
        super().__init__(message)
        self.key = key
        self.values = dict(values or {})


class StoreError(RuntimeError):
    """The class store (SQLite or PostgreSQL) failed: unreachable, locked, or refused a write.

    The one error type of rnnviz.serve.classroom_store; a page shows it as a notice
    (`key` names it in the catalogue under "errors.<key>") and keeps drawing."""

    def __init__(self, message: str = "", key: str = "store_unavailable"):
        super().__init__(message)
        self.key = key
