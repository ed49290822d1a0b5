package tools

import (
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/dap"
)

// Text renderings shared by the debugging tools.

func breakpointLines(f dap.FileBreakpoints) string {
	var b strings.Builder
	for _, bp := range f.Breakpoints {
		state := "verified"
		if !bp.Verified {
			state = "NOT verified"
		}
		fmt.Fprintf(&b, "breakpoint %s:%d %s", f.File, bp.Line, state)
		if bp.ActualLine != 0 {
			fmt.Fprintf(&b, " (moved to line %d)", bp.ActualLine)
		}
		if bp.Condition != "" {
			fmt.Fprintf(&b, " if %s", bp.Condition)
		}
		if bp.HitCondition != "" {
			fmt.Fprintf(&b, " hits %s", bp.HitCondition)
		}
		if bp.LogMessage != "" {
			fmt.Fprintf(&b, " logs %q", bp.LogMessage)
		}
		if bp.Message != "" {
			fmt.Fprintf(&b, ": %s", bp.Message)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func reportText(r dap.Report) string {
	var b strings.Builder
	switch {
	case !r.Complete:
		b.WriteString("still running (complete=false)")
	case r.State == dap.StateStopped:
		fmt.Fprintf(&b, "stopped (%s)", r.Reason)
		if r.Text != "" {
			fmt.Fprintf(&b, " %s", r.Text)
		}
		if r.Description != "" && r.Description != r.Reason {
			fmt.Fprintf(&b, " %s", r.Description)
		}
		if l := r.Location; l != nil {
			fmt.Fprintf(&b, " at %s:%d in %s, thread %d", l.File, l.Line, l.Function, r.ThreadID)
			for _, s := range l.Source {
				mark := "  "
				if s.Current {
					mark = "→ "
				}
				fmt.Fprintf(&b, "\n%s%4d  %s", mark, s.Line, s.Text)
			}
		}
		if len(r.Stack) > 1 {
			b.WriteString("\nstack:")
			for _, f := range r.Stack {
				fmt.Fprintf(&b, "\n  #%d %s %s:%d", f.Index, f.Function, f.File, f.Line)
			}
		}
	default:
		fmt.Fprintf(&b, "%s", r.State)
		if r.ExitCode != nil {
			fmt.Fprintf(&b, ", exit code %d", *r.ExitCode)
		}
	}
	if r.Note != "" {
		b.WriteString("\nnote: " + r.Note)
	}
	b.WriteString(outputText(r.Output, r.OutputDropped))
	return b.String()
}

func outputText(chunks []dap.OutputChunk, dropped int) string {
	if len(chunks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\noutput:")
	if dropped > 0 {
		fmt.Fprintf(&b, " (%d earlier bytes dropped)", dropped)
	}
	for _, c := range chunks {
		fmt.Fprintf(&b, "\n[%s] %s", c.Category, strings.TrimRight(c.Text, "\n"))
	}
	return b.String()
}
