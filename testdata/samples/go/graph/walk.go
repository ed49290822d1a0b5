// Package graph walks category trees.
package graph

import "strings"

// Node is a category with sub-categories.
type Node struct {
	Name     string
	Children []*Node
}

// Visit renders n and its descendants, indented by depth.
func Visit(n *Node, depth int) string {
	if n == nil {
		return ""
	}
	return strings.Repeat("  ", depth) + n.Name + "\n" + expand(n, depth)
}

// expand renders the children of n.
func expand(n *Node, depth int) string {
	if len(n.Children) == 0 {
		return ""
	}
	return visitChildren(n.Children, depth+1)
}

// visitChildren visits each child in order.
func visitChildren(children []*Node, depth int) string {
	var b strings.Builder
	for _, c := range children {
		b.WriteString(Visit(c, depth))
	}
	return b.String()
}
