"""The one exception type a page catches and shows as a message."""


class InputError(ValueError):
    """Bad user input: the message is written for the learner and is shown as is."""
