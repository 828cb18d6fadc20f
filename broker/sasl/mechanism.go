package sasl

import "slices"

// Mechanism names as clients send them in SaslHandshake.
const (
	Plain       = "PLAIN"
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
)

// Supported lists the mechanisms kafgo serves.
var Supported = []string{Plain, ScramSHA256, ScramSHA512}

// IsSupported reports whether kafgo serves mechanism m.
func IsSupported(m string) bool { return slices.Contains(Supported, m) }
