package sasl

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"slices"
)

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

// ScramMechanism describes one SCRAM variant (Kafka's ScramMechanism).
type ScramMechanism struct {
	Name          string
	Code          int8 // AlterUserScramCredentials' mechanism byte
	Hash          func() hash.Hash
	MinIterations int
}

// MaxIterations is the most iterations AlterUserScramCredentials accepts.
const MaxIterations = 16384

// The SCRAM mechanisms, by Kafka's wire code: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
// (0 is UNKNOWN).
var (
	SHA256 = ScramMechanism{Name: ScramSHA256, Code: 1, Hash: sha256.New, MinIterations: 4096}
	SHA512 = ScramMechanism{Name: ScramSHA512, Code: 2, Hash: sha512.New, MinIterations: 4096}
)

// ScramMechanisms lists the SCRAM mechanisms in code order.
var ScramMechanisms = []ScramMechanism{SHA256, SHA512}

// ScramByName finds a SCRAM mechanism by name.
func ScramByName(name string) (ScramMechanism, bool) {
	for _, m := range ScramMechanisms {
		if m.Name == name {
			return m, true
		}
	}
	return ScramMechanism{}, false
}

// ScramByCode finds a SCRAM mechanism by its wire code.
func ScramByCode(code int8) (ScramMechanism, bool) {
	for _, m := range ScramMechanisms {
		if m.Code == code {
			return m, true
		}
	}
	return ScramMechanism{}, false
}
