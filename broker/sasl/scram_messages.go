package sasl

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// SCRAM messages (RFC 5802 section 7), parsed to the grammar Kafka's
// ScramMessages enforces:
//
//	client-first  n,[a=<saslname>],[m=<value>,]n=<saslname>,r=<printable>[,<alpha>=<value>]*
//	server-first  r=<nonce>,s=<base64>,i=<digits>
//	client-final  c=<base64>,r=<printable>[,<alpha>=<value>]*,p=<base64>
//	server-final  v=<base64> | e=<value-safe>
//
// saslname: bytes 0x01-0x7F except '=' and ',', or =2C (",") and =3D ("=");
// printable: 0x21-0x7E except ','; value: 0x01-0x7F except ','. Only the
// "n" gs2 flag is accepted (no channel binding).

// ClientFirst is a parsed client-first message.
type ClientFirst struct {
	GS2Header  string // "n," + ["a=" authzid] + ","
	AuthzID    string // decoded
	Username   string // decoded
	Nonce      string
	Extensions map[string]string
	Bare       string // client-first-message-bare, as sent
}

// ClientFinal is a parsed client-final message.
type ClientFinal struct {
	ChannelBinding []byte
	Nonce          string
	Proof          []byte
	WithoutProof   string // client-final-message-without-proof, as sent
}

func malformed(what, msg string) error {
	return fmt.Errorf("%w: Invalid SCRAM %s message format: %s", ErrMalformed, what, msg)
}

func isValueByte(c byte) bool     { return c >= 0x01 && c <= 0x7f && c != ',' }
func isPrintableByte(c byte) bool { return c >= 0x21 && c <= 0x7e && c != ',' }
func isAlpha(c byte) bool         { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// decodeSaslname checks a saslname and decodes =2C and =3D.
func decodeSaslname(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			if i+3 > len(s) {
				return "", false
			}
			switch s[i+1 : i+3] {
			case "2C":
				b.WriteByte(',')
			case "3D":
				b.WriteByte('=')
			default:
				return "", false
			}
			i += 2
		case c >= 0x01 && c <= 0x7f && c != ',':
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// EncodeSaslname escapes a user name for a SCRAM message.
func EncodeSaslname(s string) string {
	return strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s)
}

func allBytes(s string, ok func(byte) bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// parseExtensions parses ",alpha=value" repetitions (the leading comma
// already split off into fields).
func parseExtensions(fields []string) (map[string]string, bool) {
	ext := map[string]string{}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !allBytes(k, isAlpha) || !allBytes(v, isValueByte) {
			return nil, false
		}
		ext[k] = v
	}
	return ext, true
}

// strictBase64 decodes standard base64 with padding; an empty string is the
// empty value (Kafka's BASE64 pattern allows it).
func strictBase64(s string) ([]byte, bool) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	return b, err == nil
}

// ParseClientFirst parses a client-first message.
func ParseClientFirst(msg []byte) (ClientFirst, error) {
	s := string(msg)
	var cf ClientFirst
	rest, ok := strings.CutPrefix(s, "n,")
	if !ok {
		return cf, malformed("client first", s)
	}
	i := strings.IndexByte(rest, ',')
	if i < 0 {
		return cf, malformed("client first", s)
	}
	if authz := rest[:i]; authz != "" {
		name, ok := strings.CutPrefix(authz, "a=")
		if !ok {
			return cf, malformed("client first", s)
		}
		if cf.AuthzID, ok = decodeSaslname(name); !ok {
			return cf, malformed("client first", s)
		}
	}
	cf.GS2Header = "n," + rest[:i] + ","
	cf.Bare = rest[i+1:]
	fields := strings.Split(cf.Bare, ",")
	if len(fields) > 0 && strings.HasPrefix(fields[0], "m=") {
		if !allBytes(fields[0][2:], isValueByte) {
			return cf, malformed("client first", s)
		}
		fields = fields[1:]
	}
	if len(fields) < 2 {
		return cf, malformed("client first", s)
	}
	name, ok := strings.CutPrefix(fields[0], "n=")
	if !ok {
		return cf, malformed("client first", s)
	}
	if cf.Username, ok = decodeSaslname(name); !ok {
		return cf, malformed("client first", s)
	}
	if cf.Nonce, ok = strings.CutPrefix(fields[1], "r="); !ok || !allBytes(cf.Nonce, isPrintableByte) {
		return cf, malformed("client first", s)
	}
	if cf.Extensions, ok = parseExtensions(fields[2:]); !ok {
		return cf, malformed("client first", s)
	}
	return cf, nil
}

// ParseClientFinal parses a client-final message.
func ParseClientFinal(msg []byte) (ClientFinal, error) {
	s := string(msg)
	var cf ClientFinal
	fields := strings.Split(s, ",")
	if len(fields) < 3 {
		return cf, malformed("client final", s)
	}
	cb, ok := strings.CutPrefix(fields[0], "c=")
	if !ok {
		return cf, malformed("client final", s)
	}
	if cf.ChannelBinding, ok = strictBase64(cb); !ok {
		return cf, malformed("client final", s)
	}
	if cf.Nonce, ok = strings.CutPrefix(fields[1], "r="); !ok || !allBytes(cf.Nonce, isPrintableByte) {
		return cf, malformed("client final", s)
	}
	last := fields[len(fields)-1]
	proof, ok := strings.CutPrefix(last, "p=")
	if !ok {
		return cf, malformed("client final", s)
	}
	if cf.Proof, ok = strictBase64(proof); !ok {
		return cf, malformed("client final", s)
	}
	if _, ok := parseExtensions(fields[2 : len(fields)-1]); !ok {
		return cf, malformed("client final", s)
	}
	cf.WithoutProof = s[:len(s)-len(last)-1]
	return cf, nil
}

// ServerFirst formats a server-first message.
func ServerFirst(nonce string, salt []byte, iterations int) string {
	return fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(salt), iterations)
}
