// Package testcerts generates throw-away certificates for tests: a CA, and
// server and client certificates it signs, written as PEM files (optionally
// with the private key encrypted as PBES2 PKCS#8, as `openssl pkcs8 -topk8
// -v2 aes-256-cbc -v2prf hmacWithSHA256` writes it). Nothing here is for
// production use; keys are generated fresh on every call.
package testcerts

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority.
type CA struct {
	Cert    *x509.Certificate
	Key     *ecdsa.PrivateKey
	CertPEM []byte
}

// Leaf is a certificate signed by a CA with its key.
type Leaf struct {
	Cert    *x509.Certificate
	CertPEM []byte // the leaf then the CA
	KeyPEM  []byte // unencrypted PKCS#8
}

var serial = big.NewInt(time.Now().UnixNano())

func nextSerial() *big.Int { return serial.Add(serial, big.NewInt(1)) }

// NewCA creates a self-signed CA named cn.
func NewCA(cn string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          new(big.Int).Set(nextSerial()),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"kafgo tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Server issues a server certificate for 127.0.0.1, ::1 and localhost (plus
// hosts), with subject CN=cn.
func (ca *CA) Server(cn string, hosts ...string) (*Leaf, error) {
	return ca.Issue(pkix.Name{CommonName: cn}, append([]string{"127.0.0.1", "::1", "localhost"}, hosts...), true)
}

// Client issues a client certificate with the given subject.
func (ca *CA) Client(subject pkix.Name) (*Leaf, error) {
	return ca.Issue(subject, nil, false)
}

// Issue signs a certificate for subject with the given host names/IPs.
// Servers get both server and client auth usages (brokers are clients of
// each other).
func (ca *CA) Issue(subject pkix.Name, hosts []string, server bool) (*Leaf, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: new(big.Int).Set(nextSerial()),
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pk8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return &Leaf{
		Cert:    cert,
		CertPEM: append(certPEM, ca.CertPEM...),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk8}),
	}, nil
}

// EncryptedKeyPEM returns the leaf's key as an ENCRYPTED PRIVATE KEY block
// (PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC).
func (l *Leaf) EncryptedKeyPEM(password string) ([]byte, error) {
	blk, _ := pem.Decode(l.KeyPEM)
	if blk == nil {
		return nil, fmt.Errorf("testcerts: no key")
	}
	der, err := encryptPKCS8(blk.Bytes, password)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der}), nil
}

// WriteKeystore writes the chain and the key (encrypted when password is
// not empty) to one PEM file, as ssl.keystore.location expects.
func (l *Leaf) WriteKeystore(path, password string) error {
	key := l.KeyPEM
	if password != "" {
		var err error
		if key, err = l.EncryptedKeyPEM(password); err != nil {
			return err
		}
	}
	return os.WriteFile(path, append(append([]byte(nil), l.CertPEM...), key...), 0o600)
}

// WriteTruststore writes the CA certificate to path.
func (ca *CA) WriteTruststore(path string) error {
	return os.WriteFile(path, ca.CertPEM, 0o644)
}

// Files is a CA with a server and a client certificate written to a
// directory.
type Files struct {
	Dir         string
	CA          *CA
	Server      *Leaf
	Truststore  string // CA PEM
	Keystore    string // server chain + key PEM (key encrypted with KeyPassword)
	KeyPassword string
}

// WriteServerFiles creates a CA and a server certificate under dir.
func WriteServerFiles(dir string) (*Files, error) {
	ca, err := NewCA("kafgo-test-ca")
	if err != nil {
		return nil, err
	}
	srv, err := ca.Server("localhost")
	if err != nil {
		return nil, err
	}
	f := &Files{Dir: dir, CA: ca, Server: srv, KeyPassword: "key-secret",
		Truststore: filepath.Join(dir, "ca.pem"), Keystore: filepath.Join(dir, "server.pem")}
	if err := ca.WriteTruststore(f.Truststore); err != nil {
		return nil, err
	}
	if err := srv.WriteKeystore(f.Keystore, f.KeyPassword); err != nil {
		return nil, err
	}
	return f, nil
}

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
)

func encryptPKCS8(plain []byte, password string) ([]byte, error) {
	salt := make([]byte, 16)
	iv := make([]byte, aes.BlockSize)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	if _, err := rand.Read(iv); err != nil {
		return nil, err
	}
	const iter = 2048
	key, err := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	buf := append(append([]byte(nil), plain...), make([]byte, pad)...)
	for i := len(plain); i < len(buf); i++ {
		buf[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)

	type algo struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.RawValue `asn1:"optional"`
	}
	raw := func(v any) (asn1.RawValue, error) {
		b, err := asn1.Marshal(v)
		return asn1.RawValue{FullBytes: b}, err
	}
	prf, _ := raw(algo{Algorithm: oidHMACSHA256, Parameters: asn1.NullRawValue})
	kdfParams, err := raw(struct {
		Salt       []byte
		Iterations int
		PRF        asn1.RawValue
	}{salt, iter, prf})
	if err != nil {
		return nil, err
	}
	ivRaw, err := raw(iv)
	if err != nil {
		return nil, err
	}
	pbes2, err := raw(struct{ KDF, Scheme algo }{algo{oidPBKDF2, kdfParams}, algo{oidAES256CBC, ivRaw}})
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(struct {
		Algo algo
		Data []byte
	}{algo{oidPBES2, pbes2}, buf})
}
