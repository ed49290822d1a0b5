package tools

import (
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

// The summary rendering shared by get_call_hierarchy and get_type_hierarchy.

// writeHierarchyHead writes the first lines of a hierarchy summary: what
// was asked (title), whether it was truncated, and the notes.
func writeHierarchyHead(b *strings.Builder, title string, truncated bool, notes []string) {
	b.WriteString(title)
	if truncated {
		b.WriteString(", truncated (see \"more\")")
	}
	for _, n := range notes {
		b.WriteString("\nnote: " + n)
	}
}

// writeHierarchyEntry writes the line of one entry at an indent: where it
// is, why it was not expanded and how many entries below it were left out.
func writeHierarchyEntry(b *strings.Builder, indent string, e lsp.HierarchyEntry, cycle, repeated bool, more int) {
	fmt.Fprintf(b, "\n%s%s %s  %s:%d:%d", indent, e.Kind, e.Name, e.File, e.Line, e.Column)
	switch {
	case cycle:
		b.WriteString("  [cycle]")
	case repeated:
		b.WriteString("  [repeated: expanded above]")
	case e.OutsideWorkspace:
		b.WriteString("  [outside the workspace]")
	}
	if more > 0 {
		fmt.Fprintf(b, "  [+%d more]", more)
	}
}
