package lsp

import "testing"

// TestCompletionName: the name a completion label completes, looked up to
// find where it is declared.
func TestCompletionName(t *testing.T) {
	for label, want := range map[string]string{
		"Token":          "Token",
		"secret.Config":  "Config",
		"ErrEmpty.Error": "Error",
		"sign(msg)":      "sign",
		"key?":           "key",
		"key?: string":   "key",
		"Map[K, V]":      "Map",
		"(*T).M":         "", // no name to look up: withheld
	} {
		if got := completionName(label); got != want {
			t.Errorf("completionName(%q) = %q, want %q", label, got, want)
		}
	}
}
