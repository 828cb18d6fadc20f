package znode

import (
	"fmt"
	"net/url"
	"strings"
)

// User and client entities are stored under a sanitized name (Kafka's
// Sanitizer): the name URL-encoded as UTF-8 (letters, digits, '.', '-' and
// '_' stay as they are; every other byte is %XX in upper-case hex, a space
// is %20, '*' is %2A), so any principal or client id is a valid znode name.
// /config/users/<sanitized user> holds the user's SCRAM credentials
// (SCRAM-SHA-256, SCRAM-SHA-512) and quota configs; its change notification
// names users/<sanitized user>.

// SanitizeEntity encodes a user or client-id name for a znode name.
func SanitizeEntity(name string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
	return b.String()
}

// DesanitizeEntity decodes a sanitized name (Kafka's URLDecoder, so '+'
// reads as a space).
func DesanitizeEntity(s string) (string, error) {
	out, err := url.QueryUnescape(s)
	if err != nil {
		return "", fmt.Errorf("znode: sanitized entity name %q: %w", s, err)
	}
	return out, nil
}

// UserConfigPath is /config/users/<sanitized user>.
func UserConfigPath(user string) string {
	return EntityConfigPath(ConfigTypeUser, SanitizeEntity(user))
}
