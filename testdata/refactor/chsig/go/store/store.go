// Package store keeps counters.
package store

import "fmt"

// Store saves a value under a key.
type Store interface {
	Save(key string, value int) error
}

// Mem is a Store in memory.
type Mem struct{ M map[string]int }

// Save stores value.
func (m *Mem) Save(key string, value int) error {
	if m.M == nil {
		m.M = map[string]int{}
	}
	m.M[key] = value
	return nil
}

// Log is a Store that prints.
type Log struct{ Lines []string }

// Save records the pair.
func (l *Log) Save(k string, v int) error {
	l.Lines = append(l.Lines, fmt.Sprintf("%s=%d", k, v))
	return nil
}
