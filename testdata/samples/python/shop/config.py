"""Read the shop settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Config:
    currency: str = ""
    tax_percent: int = 0


def load_config(src: str) -> Config:
    """Parse and validate a key=value settings blob."""
    return parse_config(src)


def parse_config(src: str) -> Config:
    cfg = Config()
    for line in src.splitlines():
        key, _, value = line.partition("=")
        if key == "currency":
            cfg.currency = value
        elif key == "tax":
            cfg.tax_percent = int(value)
    validate_config(cfg)
    return cfg


def validate_config(cfg: Config) -> None:
    if not cfg.currency:
        raise ValueError("config: currency is required")
    if not 0 <= cfg.tax_percent <= 100:
        raise ValueError("config: tax out of range")
