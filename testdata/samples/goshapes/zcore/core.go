// Package zcore names things the way zap's zapcore does: an interface Core
// and struct types embedding it, so a query "zcore.Core" could be read as
// the interface or as either embedded field.
package zcore

// Core is what hooked and sampler wrap.
type Core interface {
	Sync() error
}

type hooked struct {
	Core
}

type sampler struct {
	Core
	n int
}

// Render is an interface with methods of the same name (gin's render.Render).
type Render interface {
	Render() error
}

type JSON struct{}

func (JSON) Render() error { return nil }

type XML struct{}

func (XML) Render() error { return nil }
