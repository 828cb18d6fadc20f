//go:build race

package storage

// raceEnabled: the race detector multiplies CPU and memory; the scale test
// runs a smaller size under it.
const raceEnabled = true
