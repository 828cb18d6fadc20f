package tlsconf

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// protocolVersions maps Java's ssl.enabled.protocols names to Go's.
var protocolVersions = map[string]uint16{
	"TLSv1":   tls.VersionTLS10,
	"TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.3": tls.VersionTLS13,
}

// Versions maps ssl.enabled.protocols to Go's version range. Go negotiates
// a contiguous range, so a list with a gap (TLSv1.1,TLSv1.3) is refused
// rather than silently widened.
func Versions(protocols []string) (minV, maxV uint16, err error) {
	if len(protocols) == 0 {
		return 0, 0, fmt.Errorf("tlsconf: ssl.enabled.protocols is empty")
	}
	set := map[uint16]bool{}
	for _, p := range protocols {
		v, ok := protocolVersions[strings.TrimSpace(p)]
		if !ok {
			return 0, 0, fmt.Errorf("tlsconf: ssl.enabled.protocols: unsupported protocol %q (TLSv1.2 and TLSv1.3 are supported; TLSv1 and TLSv1.1 are accepted)", p)
		}
		set[v] = true
		if minV == 0 || v < minV {
			minV = v
		}
		maxV = max(maxV, v)
	}
	for v := minV; v <= maxV; v++ {
		if !set[v] {
			return 0, 0, fmt.Errorf("tlsconf: ssl.enabled.protocols %s leaves a gap; list a contiguous range of versions", strings.Join(protocols, ","))
		}
	}
	return minV, maxV, nil
}

// tls13Suites are TLS 1.3's suites: Go always enables all three, so they are
// accepted in ssl.cipher.suites but cannot be narrowed.
var tls13Suites = map[string]bool{
	"TLS_AES_128_GCM_SHA256":       true,
	"TLS_AES_256_GCM_SHA384":       true,
	"TLS_CHACHA20_POLY1305_SHA256": true,
}

// CipherSuites maps ssl.cipher.suites (Java/IANA names; Java's SSL_ prefix
// is read as TLS_) to Go's TLS 1.0-1.2 suite ids. has13 reports whether any
// TLS 1.3 suite was named: without one, TLS 1.3 must be off to match Java,
// which then has no suite to offer for it.
func CipherSuites(names []string) (ids []uint16, has13 bool, err error) {
	known := map[string]uint16{}
	for _, s := range slices.Concat(tls.CipherSuites(), tls.InsecureCipherSuites()) {
		known[s.Name] = s.ID
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if tls13Suites[n] {
			has13 = true
			continue
		}
		name := n
		if rest, ok := strings.CutPrefix(n, "SSL_"); ok {
			name = "TLS_" + rest
		}
		id, ok := known[name]
		if !ok {
			return nil, false, fmt.Errorf("tlsconf: ssl.cipher.suites: unsupported cipher suite %s", n)
		}
		ids = append(ids, id)
	}
	return ids, has13, nil
}
