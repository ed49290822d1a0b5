// Package text has small string helpers for customer-facing text.
package text

import "strings"

// Normalize collapses runs of whitespace and trims s.
func Normalize(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
