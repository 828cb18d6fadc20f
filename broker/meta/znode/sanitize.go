package znode

import (
	"fmt"
	"net/url"
	"strings"
)

// Sanitize makes a user principal or client id a znode name as Kafka's
// Sanitizer does (kafka-configs and the brokers both use it for
// /config/users/<user> and /config/clients/<client-id>): the UTF-8 bytes
// are URL-encoded as Java's URLEncoder encodes them (letters, digits and
// ".-*_" kept, every other byte %XX in upper-case hex), and then "*" is
// written %2A and a space %20, so the name holds no character with a
// meaning in a path or an ACL.
func Sanitize(name string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// Desanitize reverses Sanitize, as Java's URLDecoder does ("+" is a
// space, %XX a byte); a malformed escape is an error.
func Desanitize(name string) (string, error) {
	s, err := url.QueryUnescape(name)
	if err != nil {
		return "", fmt.Errorf("znode: desanitizing %q: %w", name, err)
	}
	return s, nil
}
