// Package testlog captures what a test's subject writes (a broker's log, a
// process's output) for the test to read while the writer is still running.
package testlog

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for one or more writers and a reader at
// the same time.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
