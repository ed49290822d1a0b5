def area(w: float, h: float) -> float:
    return w * h


def report() -> str:
    return f"area {area(2, 3)} of {missing_name}"
