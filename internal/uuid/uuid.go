package uuid

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// UUID is a Kafka Uuid: 16 bytes, most significant byte first.
type UUID [16]byte

// Zero is the all-zero id Kafka uses for "no id" (Uuid.ZERO_UUID).
var Zero UUID

// MetadataTopicID is the reserved id of KRaft's __cluster_metadata topic
// (Uuid.METADATA_TOPIC_ID); reserved here so a random id never collides.
var MetadataTopicID = UUID{15: 1}

// ErrInvalid reports text that is not a 22-character URL-safe base64 id.
var ErrInvalid = errors.New("invalid uuid")

var enc = base64.RawURLEncoding

// New returns a random version-4 id that is neither reserved nor starts with
// '-' in text form. It fails only if the system random source fails.
func New() (UUID, error) {
	// The loop ends with overwhelming probability within a few rounds: one id
	// in 64 starts with '-'. The bound turns a broken random source into an
	// error instead of a hang.
	for range 1000 {
		var u UUID
		if _, err := rand.Read(u[:]); err != nil {
			return Zero, fmt.Errorf("uuid: random source: %w", err)
		}
		// Version 4 and IETF variant bits, as java.util.UUID.randomUUID sets
		// them, so ids look like the ones Kafka generates.
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		if u == Zero || u == MetadataTopicID || strings.HasPrefix(u.String(), "-") {
			continue
		}
		return u, nil
	}
	return Zero, errors.New("uuid: random source keeps producing reserved ids")
}

// MustNew is New for callers that cannot continue without randomness.
func MustNew() UUID {
	u, err := New()
	if err != nil {
		panic(err)
	}
	return u
}

// String is the 22-character URL-safe base64 form without padding.
func (u UUID) String() string { return enc.EncodeToString(u[:]) }

// IsZero reports whether u is the "no id" value.
func (u UUID) IsZero() bool { return u == Zero }

// Parse decodes the text form. The padded 24-character form is accepted too.
func Parse(s string) (UUID, error) {
	raw := s
	if len(raw) == 24 && strings.HasSuffix(raw, "==") {
		raw = raw[:22]
	}
	if len(raw) != 22 {
		return Zero, fmt.Errorf("uuid: parse %q: %w: want 22 characters, got %d", s, ErrInvalid, len(s))
	}
	var u UUID
	n, err := enc.Strict().Decode(u[:], []byte(raw))
	if err != nil {
		return Zero, fmt.Errorf("uuid: parse %q: %w: %v", s, ErrInvalid, err)
	}
	if n != 16 {
		return Zero, fmt.Errorf("uuid: parse %q: %w: decoded %d bytes", s, ErrInvalid, n)
	}
	return u, nil
}

// MarshalText implements encoding.TextMarshaler with the String form.
func (u UUID) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with Parse.
func (u *UUID) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*u = v
	return nil
}
