package tlsconf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"kafgo/internal/javaprops"
)

// Getter returns the value of a Kafka config key and whether it is set: a
// properties file on the client side, the broker's effective value (with
// listener.name.<l>. overrides) on the server side.
type Getter func(key string) (string, bool)

// Settings are the ssl.* keys of one client or listener.
type Settings struct {
	KeystoreType     string // PEM, or JKS/PKCS12 (accepted only for PEM content)
	KeystoreLocation string
	KeystoreKey      string // inline PEM private key (ssl.keystore.key)
	KeystoreChain    string // inline PEM certificates (ssl.keystore.certificate.chain)
	KeyPassword      string
	HasKeyPassword   bool

	TruststoreType         string
	TruststoreLocation     string
	TruststoreCertificates string // inline PEM (ssl.truststore.certificates)

	ClientAuth       string   // none, requested, required (servers)
	EnabledProtocols []string // TLSv1.2, TLSv1.3, ...
	CipherSuites     []string // empty: Go's defaults
	// VerifyHostname is ssl.endpoint.identification.algorithm=https (the
	// default); an empty value turns host name checks off (clients).
	VerifyHostname bool
}

// ErrConfig is wrapped by every settings error.
var ErrConfig = errors.New("tlsconf: invalid SSL configuration")

func cfgErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
}

// KeyError is a settings error caused by one key, which it names (the
// message, Kafka's, does not always), so a caller that knows where the
// key was set (a listener override, a properties file) can say so.
type KeyError struct {
	Key string // the ssl.* key at fault, e.g. ssl.keystore.password
	err error  // wraps ErrConfig
}

func (e *KeyError) Error() string { return e.err.Error() }
func (e *KeyError) Unwrap() error { return e.err }

func keyErr(key, format string, a ...any) error {
	return &KeyError{Key: key, err: cfgErr(format, a...)}
}

// Read collects the ssl.* keys and applies Kafka's consistency rules for
// PEM stores (DefaultSslEngineFactory, KIP-651).
func Read(get Getter) (Settings, error) {
	str := func(k, def string) string {
		if v, ok := get(k); ok {
			return strings.TrimSpace(v)
		}
		return def
	}
	var s Settings
	s.KeystoreType = strings.ToUpper(str("ssl.keystore.type", "JKS"))
	s.KeystoreLocation = str("ssl.keystore.location", "")
	s.KeystoreKey, _ = get("ssl.keystore.key")
	s.KeystoreChain, _ = get("ssl.keystore.certificate.chain")
	s.KeyPassword, s.HasKeyPassword = get("ssl.key.password")
	s.TruststoreType = strings.ToUpper(str("ssl.truststore.type", "JKS"))
	s.TruststoreLocation = str("ssl.truststore.location", "")
	s.TruststoreCertificates, _ = get("ssl.truststore.certificates")
	s.ClientAuth = strings.ToLower(str("ssl.client.auth", "none"))
	s.EnabledProtocols = javaprops.List(str("ssl.enabled.protocols", "TLSv1.2,TLSv1.3"))
	s.CipherSuites = javaprops.List(str("ssl.cipher.suites", ""))
	s.VerifyHostname = true
	if v, ok := get("ssl.endpoint.identification.algorithm"); ok {
		switch a := strings.TrimSpace(v); strings.ToLower(a) {
		case "":
			s.VerifyHostname = false
		case "https":
		default:
			return s, keyErr("ssl.endpoint.identification.algorithm", "ssl.endpoint.identification.algorithm %q is not supported (https, or empty to disable)", a)
		}
	}
	switch s.ClientAuth {
	case "none", "requested", "required":
	default:
		return s, keyErr("ssl.client.auth", "ssl.client.auth %q must be one of required, requested, none", s.ClientAuth)
	}
	_, hasKeystorePass := get("ssl.keystore.password")
	_, hasTruststorePass := get("ssl.truststore.password")
	for _, t := range []struct{ key, v string }{{"ssl.keystore.type", s.KeystoreType}, {"ssl.truststore.type", s.TruststoreType}} {
		switch t.v {
		case "PEM", "JKS", "PKCS12":
		default:
			return s, keyErr(t.key, "%s %s is not supported: use PEM", t.key, t.v)
		}
	}
	switch {
	case s.KeystoreKey != "" && s.KeystoreType != "PEM":
		return s, keyErr("ssl.keystore.key", "SSL private key can be specified only for PEM, but key store type is %s.", s.KeystoreType)
	case s.KeystoreKey != "" && s.KeystoreChain == "":
		return s, keyErr("ssl.keystore.key", "SSL private key is specified, but certificate chain is not specified.")
	case s.KeystoreKey != "" && s.KeystoreLocation != "":
		return s, keyErr("ssl.keystore.key", "Both SSL key store location and separate private key are specified.")
	case s.KeystoreChain != "" && s.KeystoreKey == "":
		return s, keyErr("ssl.keystore.certificate.chain", "SSL certificate chain is specified, but private key is not specified.")
	case s.KeystoreType == "PEM" && hasKeystorePass && (s.KeystoreLocation != "" || s.KeystoreKey != ""):
		return s, keyErr("ssl.keystore.password", "SSL key store password cannot be specified with PEM format, only key password may be specified")
	case s.TruststoreCertificates != "" && s.TruststoreType != "PEM":
		return s, keyErr("ssl.truststore.certificates", "SSL trust store certs can be specified only for PEM, but trust store type is %s.", s.TruststoreType)
	case s.TruststoreCertificates != "" && s.TruststoreLocation != "":
		return s, keyErr("ssl.truststore.certificates", "Both SSL trust store location and separate trust certificates are specified.")
	case s.TruststoreType == "PEM" && hasTruststorePass && (s.TruststoreLocation != "" || s.TruststoreCertificates != ""):
		return s, keyErr("ssl.truststore.password", "SSL trust store password cannot be specified for PEM format.")
	}
	return s, nil
}

// HasKeystore reports whether a certificate is configured.
func (s Settings) HasKeystore() bool { return s.KeystoreLocation != "" || s.KeystoreChain != "" }

// HasTruststore reports whether trusted certificates are configured.
func (s Settings) HasTruststore() bool {
	return s.TruststoreLocation != "" || s.TruststoreCertificates != ""
}

// readStore reads a store file. JKS and PKCS12 are Java formats kafgo does
// not read; a file of that declared type whose content is PEM is accepted
// (Kafka's default type is JKS, so configs often leave it unset).
func readStore(key, path, typ string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, cfgErr("%s: %v", key, err)
	}
	if !bytes.Contains(b, []byte("-----BEGIN ")) {
		if typ != "PEM" {
			return nil, cfgErr("%s %s holds a %s store, which kafgo cannot read: convert it to PEM (set the store type to PEM, KIP-651)", key, path, typ)
		}
		return nil, cfgErr("%s %s holds no PEM data", key, path)
	}
	return b, nil
}

// loadKeyPair loads the configured certificate and key.
func (s Settings) loadKeyPair() (certPEM, keyPEM []byte, err error) {
	if s.KeystoreChain != "" {
		return []byte(s.KeystoreChain), []byte(s.KeystoreKey), nil
	}
	b, err := readStore("ssl.keystore.location", s.KeystoreLocation, s.KeystoreType)
	if err != nil {
		return nil, nil, err
	}
	return b, b, nil
}

func (s Settings) loadTrustPEM() ([]byte, error) {
	if s.TruststoreCertificates != "" {
		return []byte(s.TruststoreCertificates), nil
	}
	return readStore("ssl.truststore.location", s.TruststoreLocation, s.TruststoreType)
}
