package storage

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
)

// FormatUUID renders a 16-byte id the way Kafka's Uuid.toString does: URL-safe
// base64 without padding, 22 characters (topic ids, cluster ids).
func FormatUUID(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// ParseUUID is the inverse of FormatUUID.
func ParseUUID(s string) ([16]byte, error) {
	var id [16]byte
	if len(s) != 22 {
		return id, fmt.Errorf("storage: uuid %q: want 22 base64url characters, have %d", s, len(s))
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return id, fmt.Errorf("storage: uuid %q: %w", s, err)
	}
	copy(id[:], b)
	return id, nil
}

// NewUUID returns a random version-4 UUID as Kafka's Uuid.randomUuid does,
// which also never returns the zero id nor one whose text starts with '-'
// (it would read as a command-line flag).
func NewUUID() [16]byte {
	for {
		var id [16]byte
		_, _ = rand.Read(id[:]) // crypto/rand.Read never fails (Go 1.24+)
		id[6] = id[6]&0x0f | 0x40
		id[8] = id[8]&0x3f | 0x80
		if id != ([16]byte{}) && !strings.HasPrefix(FormatUUID(id), "-") {
			return id
		}
	}
}
