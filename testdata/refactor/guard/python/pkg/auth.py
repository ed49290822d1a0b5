"""Authentication headers."""


def _basic(user: str, password: str) -> str:
    return user + ":" + password


def encode(text: str) -> str:
    return text.strip()


def header(user: str, password: str) -> str:
    return "Basic " + encode(_basic(user, password))
