"""Walk category trees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List


@dataclass
class Node:
    name: str
    children: List[Node] = field(default_factory=list)


def visit(node: Node, depth: int = 0) -> str:
    """Render node and its descendants, indented by depth."""
    return "  " * depth + node.name + "\n" + expand(node, depth)


def expand(node: Node, depth: int) -> str:
    """Render the children of node."""
    rendered = ""
    for child in node.children:
        rendered += visit(child, depth + 1)
    return rendered
