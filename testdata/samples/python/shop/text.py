"""Small string helpers for customer-facing text."""


def normalize(text: str) -> str:
    """Collapse runs of whitespace and trim text."""
    return " ".join(text.split())


def utf8_len(text: str) -> int:
    """Count the code points in text."""
    return len(text)


def greet(name: str) -> str:
    greeting = "héllo 世界 🎉 " + name; count = utf8_len(greeting)
    return "%s (%d)" % (greeting, count)


def describe(label: str) -> str:
    width = utf8_len("naïve café 🙂 世界") + utf8_len(label)
    return "%s (%d)" % (label, width)
