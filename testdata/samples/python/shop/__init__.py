"""Tiny order-processing app used as an LSP test fixture."""

from shop.orders import Line, Order, Total, process

__all__ = ["Line", "Order", "Total", "process"]
