//go:build !unix

package meta

// lockFile is a no-op where flock is unavailable; kafgo targets Linux.
func lockFile(path string) (func() error, error) {
	return func() error { return nil }, nil
}
