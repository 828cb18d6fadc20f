package tlsconf

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// KeyPair parses a PEM key store: certificate blocks (leaf first, then its
// chain) and one private key, PKCS#8 ("PRIVATE KEY"), encrypted PKCS#8
// ("ENCRYPTED PRIVATE KEY", decrypted with password), or PKCS#1/SEC1 ("RSA
// PRIVATE KEY", "EC PRIVATE KEY"). The key must match the first
// certificate. chain and key may be the same bytes (a combined file).
func KeyPair(chain, key []byte, password string, hasPassword bool) (tls.Certificate, error) {
	var cert tls.Certificate
	for rest := chain; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type == "CERTIFICATE" {
			cert.Certificate = append(cert.Certificate, blk.Bytes)
		}
	}
	if len(cert.Certificate) == 0 {
		return tls.Certificate{}, errors.New("tlsconf: key store holds no PEM CERTIFICATE block")
	}
	var keyBlock *pem.Block
	for rest := key; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if strings.HasSuffix(blk.Type, "PRIVATE KEY") {
			if keyBlock != nil {
				return tls.Certificate{}, errors.New("tlsconf: key store holds more than one private key")
			}
			keyBlock = blk
		}
	}
	if keyBlock == nil {
		return tls.Certificate{}, errors.New("tlsconf: key store holds no PEM PRIVATE KEY block")
	}
	priv, err := parsePrivateKey(keyBlock, password, hasPassword)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsconf: key store certificate: %w", err)
	}
	if !publicKeyMatches(leaf.PublicKey, priv) {
		return tls.Certificate{}, errors.New("tlsconf: private key does not match the first certificate of the key store")
	}
	cert.PrivateKey = priv
	cert.Leaf = leaf
	return cert, nil
}

func parsePrivateKey(blk *pem.Block, password string, hasPassword bool) (crypto.PrivateKey, error) {
	if _, legacy := blk.Headers["Proc-Type"]; legacy {
		return nil, errors.New("tlsconf: legacy OpenSSL-encrypted PEM keys (Proc-Type: 4,ENCRYPTED) are not supported; convert with openssl pkcs8 -topk8")
	}
	switch blk.Type {
	case "ENCRYPTED PRIVATE KEY":
		if !hasPassword {
			return nil, errors.New("tlsconf: the private key is encrypted but ssl.key.password is not set")
		}
		return decryptPKCS8(blk.Bytes, password)
	case "PRIVATE KEY":
		return x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(blk.Bytes)
	}
	return nil, fmt.Errorf("tlsconf: unsupported private key block %q", blk.Type)
}

func publicKeyMatches(pub any, priv crypto.PrivateKey) bool {
	type publicKeyer interface{ Public() crypto.PublicKey }
	pk, ok := priv.(publicKeyer)
	if !ok {
		return false
	}
	switch p := pub.(type) {
	case *rsa.PublicKey:
		return p.Equal(pk.Public())
	case *ecdsa.PublicKey:
		return p.Equal(pk.Public())
	case ed25519.PublicKey:
		return p.Equal(pk.Public())
	}
	return false
}

// CertPool parses PEM trust store certificates.
func CertPool(pemCerts []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	n := 0
	for rest := pemCerts; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tlsconf: trust store certificate: %w", err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, errors.New("tlsconf: trust store holds no PEM CERTIFICATE block")
	}
	return pool, nil
}
