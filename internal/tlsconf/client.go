package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// baseConfig applies the protocol range and cipher suites.
func (s Settings) baseConfig() (*tls.Config, error) {
	minV, maxV, err := Versions(s.EnabledProtocols)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: minV, MaxVersion: maxV}
	if len(s.CipherSuites) > 0 {
		ids, has13, err := CipherSuites(s.CipherSuites)
		if err != nil {
			return nil, err
		}
		cfg.CipherSuites = ids
		if !has13 && cfg.MaxVersion == tls.VersionTLS13 {
			// Java offers no TLS 1.3 suite then, so it never negotiates 1.3.
			cfg.MaxVersion = tls.VersionTLS12
		}
		if len(ids) == 0 && cfg.MinVersion < tls.VersionTLS13 {
			if cfg.MaxVersion < tls.VersionTLS13 {
				return nil, cfgErr("ssl.cipher.suites names only TLS 1.3 suites but TLSv1.3 is not enabled")
			}
			cfg.MinVersion = tls.VersionTLS13
		}
		if cfg.MinVersion > cfg.MaxVersion {
			return nil, cfgErr("ssl.cipher.suites and ssl.enabled.protocols leave no usable protocol")
		}
	}
	return cfg, nil
}

// ClientConfig builds a client-side TLS config: the trust store (system
// roots when none is set), the key store for mutual TLS, and host name
// verification unless ssl.endpoint.identification.algorithm is empty, in
// which case the chain is still verified.
func (s Settings) ClientConfig() (*tls.Config, error) {
	cfg, err := s.baseConfig()
	if err != nil {
		return nil, err
	}
	if s.HasTruststore() {
		b, err := s.loadTrustPEM()
		if err != nil {
			return nil, err
		}
		if cfg.RootCAs, err = CertPool(b); err != nil {
			return nil, err
		}
	}
	if s.HasKeystore() {
		certPEM, keyPEM, err := s.loadKeyPair()
		if err != nil {
			return nil, err
		}
		cert, err := KeyPair(certPEM, keyPEM, s.KeyPassword, s.HasKeyPassword)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if !s.VerifyHostname {
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true // chain still verified below, host name not
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return verifyChain(raw, roots)
		}
	}
	return cfg, nil
}

// verifyChain verifies a peer chain against roots without checking the
// host name.
func verifyChain(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("tls: peer sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, r := range raw {
		c, err := x509.ParseCertificate(r)
		if err != nil {
			return fmt.Errorf("tls: %w", err)
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	if _, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter}); err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	return nil
}
