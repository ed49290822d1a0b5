// Walk category trees.

export interface Node {
  name: string;
  children: Node[];
}

export function visit(node: Node, depth = 0): string {
  return "  ".repeat(depth) + node.name + "\n" + expand(node, depth);
}

function expand(node: Node, depth: number): string {
  let rendered = "";
  for (const child of node.children) {
    rendered += visit(child, depth + 1);
  }
  return rendered;
}
