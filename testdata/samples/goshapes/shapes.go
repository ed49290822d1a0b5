// Package shapes lays declarations out the way real code does (zap's
// nopCore: one-line methods side by side; interface methods next to each
// other), for the tests of where a declaration's source ends.
package shapes

// Sink is written to.
type Sink interface {
	// Write writes p.
	Write(p []byte) error
	Sync() error
}

type nopSink struct{}

func (nopSink) Write(p []byte) error { return nil }
func (nopSink) Sync() error          { return nil }

type fileSink struct{ n int }

func (f *fileSink) Write(p []byte) error {
	f.n += len(p)
	return nil
}
func (f *fileSink) Sync() error { return nil }

// Use syncs s.
func Use(s Sink) error { return s.Sync() }
