package cliutil

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

var (
	jaasUser = regexp.MustCompile(`username\s*=\s*"([^"]*)"`)
	jaasPass = regexp.MustCompile(`password\s*=\s*"([^"]*)"`)
)

// securityOpts maps security.protocol, sasl.* and the PEM forms of ssl.*.
// JKS and PKCS12 stores are Java formats; they are refused with a message
// rather than silently ignored, since ignoring them would connect in the
// clear or fail later with a confusing handshake error.
func securityOpts(c *Config) ([]kgo.Opt, error) {
	proto := "PLAINTEXT"
	if v, ok := c.Get("security.protocol"); ok {
		proto = strings.ToUpper(strings.TrimSpace(v))
	}
	var useTLS, useSASL bool
	switch proto {
	case "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return nil, fmt.Errorf("Invalid value %s for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", proto)
	}
	var opts []kgo.Opt
	if useTLS {
		cfg, err := tlsConfig(c)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if useSASL {
		m, err := saslMechanism(c)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

func saslMechanism(c *Config) (sasl.Mechanism, error) {
	mech := "GSSAPI" // Java's default, which kafgo cannot do.
	if v, ok := c.Get("sasl.mechanism"); ok {
		mech = strings.ToUpper(strings.TrimSpace(v))
	}
	jaas, _ := c.Get("sasl.jaas.config")
	user, pass := "", ""
	if m := jaasUser.FindStringSubmatch(jaas); m != nil {
		user = m[1]
	}
	if m := jaasPass.FindStringSubmatch(jaas); m != nil {
		pass = m[1]
	}
	if user == "" {
		return nil, errors.New("sasl.jaas.config must set username=\"...\" and password=\"...\"")
	}
	switch mech {
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("unsupported sasl.mechanism %s: kafgo supports PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", mech)
}

func tlsConfig(c *Config) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if t, ok := c.Get("ssl.truststore.type"); ok && !strings.EqualFold(t, "PEM") {
		return nil, fmt.Errorf("ssl.truststore.type %s is not supported: use PEM", t)
	}
	var caPEM []byte
	if v, ok := c.Get("ssl.truststore.certificates"); ok {
		caPEM = []byte(v)
	} else if path, ok := c.Get("ssl.truststore.location"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading ssl.truststore.location: %w", err)
		}
		caPEM = b
	}
	if caPEM != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("ssl truststore holds no PEM certificates")
		}
		cfg.RootCAs = pool
	}
	if t, ok := c.Get("ssl.keystore.type"); ok && !strings.EqualFold(t, "PEM") {
		return nil, fmt.Errorf("ssl.keystore.type %s is not supported: use PEM", t)
	}
	var chain, key []byte
	if v, ok := c.Get("ssl.keystore.certificate.chain"); ok {
		chain = []byte(v)
		k, _ := c.Get("ssl.keystore.key")
		key = []byte(k)
	} else if path, ok := c.Get("ssl.keystore.location"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading ssl.keystore.location: %w", err)
		}
		chain, key = splitPEM(b)
	}
	c.Consume("ssl.key.password", "ssl.truststore.password", "ssl.keystore.password")
	if chain != nil {
		cert, err := tls.X509KeyPair(chain, key)
		if err != nil {
			return nil, fmt.Errorf("ssl keystore: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	// Java's empty ssl.endpoint.identification.algorithm keeps chain
	// verification but drops the host name check.
	if alg, ok := c.Get("ssl.endpoint.identification.algorithm"); ok && strings.TrimSpace(alg) == "" {
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return verifyChainNoHost(raw, roots)
		}
	}
	return cfg, nil
}

func verifyChainNoHost(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("tls: server sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, r := range raw {
		cert, err := x509.ParseCertificate(r)
		if err != nil {
			return fmt.Errorf("tls: %w", err)
		}
		certs[i] = cert
	}
	inter := x509.NewCertPool()
	for _, cert := range certs[1:] {
		inter.AddCert(cert)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	return nil
}

// splitPEM separates certificate blocks from the private key block of a
// combined PEM keystore file.
func splitPEM(b []byte) (certs, key []byte) {
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return certs, key
		}
		enc := pem.EncodeToMemory(blk)
		if strings.Contains(blk.Type, "PRIVATE KEY") {
			key = append(key, enc...)
		} else {
			certs = append(certs, enc...)
		}
	}
}
