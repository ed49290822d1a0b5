//go:build !linux

package workspace

// Changes is inotify's on Linux; elsewhere it watches nothing and every
// file is stamped (Unchanged always says no).
type Changes struct{}

// Moment is a point in a Changes' notifications (none here).
type Moment struct{}

// OK is false here: no moment is one.
func (m Moment) OK() bool { return false }

// NewChanges follows nothing here.
func NewChanges(root string) *Changes { return &Changes{} }

// Close does nothing here.
func (c *Changes) Close() {}

// Begin is no moment here.
func (c *Changes) Begin() Moment { return Moment{} }

// Watch watches nothing here.
func (c *Changes) Watch(abs string) bool { return false }

// Unchanged is false here: every file is stamped.
func (c *Changes) Unchanged(abs string, at Moment) bool { return false }

// WatchDir watches nothing here.
func (c *Changes) WatchDir(dir string) bool { return false }
