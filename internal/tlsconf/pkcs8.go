package tlsconf

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// Encrypted PKCS#8 (RFC 5958 EncryptedPrivateKeyInfo) with PBES2 (RFC
// 8018): the "-----BEGIN ENCRYPTED PRIVATE KEY-----" blocks that Kafka's PEM
// key stores (KIP-651) decrypt with ssl.key.password, and that
// `openssl pkcs8 -topk8` writes. Supported: PBKDF2 with HMAC-SHA1/224/256/
// 384/512 and AES-128/192/256-CBC or DES-EDE3-CBC.

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

// ErrKeyPassword means the key could not be decrypted with the password.
var ErrKeyPassword = errors.New("tlsconf: wrong ssl.key.password for the private key")

type encryptedPrivateKeyInfo struct {
	Algo          pkix.AlgorithmIdentifier
	EncryptedData []byte
}

type pbes2Params struct {
	KDF    pkix.AlgorithmIdentifier
	Scheme pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// maxPBKDF2Iterations bounds the work a hostile key file can demand.
const maxPBKDF2Iterations = 10_000_000

// decryptPKCS8 decrypts an EncryptedPrivateKeyInfo and parses the key.
func decryptPKCS8(der []byte, password string) (any, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, fmt.Errorf("tlsconf: encrypted private key is not PKCS#8 EncryptedPrivateKeyInfo: %v", err)
	}
	if !info.Algo.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("tlsconf: private key encryption %v is not supported (use PBES2, e.g. openssl pkcs8 -topk8 -v2 aes-256-cbc)", info.Algo.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algo.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("tlsconf: PBES2 parameters: %w", err)
	}
	if !params.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("tlsconf: key derivation %v is not supported (use PBKDF2)", params.KDF.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KDF.Parameters.FullBytes, &kdf); err != nil {
		return nil, fmt.Errorf("tlsconf: PBKDF2 parameters: %w", err)
	}
	if kdf.Iterations <= 0 || kdf.Iterations > maxPBKDF2Iterations {
		return nil, fmt.Errorf("tlsconf: PBKDF2 iteration count %d out of range", kdf.Iterations)
	}
	prf, err := prfHash(kdf.PRF.Algorithm)
	if err != nil {
		return nil, err
	}
	var keyLen int
	var newBlock func([]byte) (cipher.Block, error)
	switch s := params.Scheme.Algorithm; {
	case s.Equal(oidAES128CBC):
		keyLen, newBlock = 16, aes.NewCipher
	case s.Equal(oidAES192CBC):
		keyLen, newBlock = 24, aes.NewCipher
	case s.Equal(oidAES256CBC):
		keyLen, newBlock = 32, aes.NewCipher
	case s.Equal(oidDESEDE3CBC):
		keyLen, newBlock = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("tlsconf: private key cipher %v is not supported (use AES-CBC)", s)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.Scheme.Parameters.FullBytes, &iv); err != nil {
		return nil, fmt.Errorf("tlsconf: cipher IV: %w", err)
	}
	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: PBKDF2: %w", err)
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(iv) != bs || len(info.EncryptedData) == 0 || len(info.EncryptedData)%bs != 0 {
		return nil, errors.New("tlsconf: encrypted private key has a bad IV or length")
	}
	plain := make([]byte, len(info.EncryptedData))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, info.EncryptedData)
	// PKCS#7 padding; a wrong password almost always breaks it.
	pad := int(plain[len(plain)-1])
	if pad == 0 || pad > bs {
		return nil, ErrKeyPassword
	}
	for _, b := range plain[len(plain)-pad:] {
		if int(b) != pad {
			return nil, ErrKeyPassword
		}
	}
	k, err := x509.ParsePKCS8PrivateKey(plain[:len(plain)-pad])
	if err != nil {
		return nil, ErrKeyPassword
	}
	return k, nil
}

func prfHash(oid asn1.ObjectIdentifier) (func() hash.Hash, error) {
	switch {
	case len(oid) == 0, oid.Equal(oidHMACSHA1):
		return sha1.New, nil // RFC 8018's default PRF
	case oid.Equal(oidHMACSHA224):
		return sha256.New224, nil
	case oid.Equal(oidHMACSHA256):
		return sha256.New, nil
	case oid.Equal(oidHMACSHA384):
		return sha512.New384, nil
	case oid.Equal(oidHMACSHA512):
		return sha512.New, nil
	}
	return nil, fmt.Errorf("tlsconf: PBKDF2 PRF %v is not supported", oid)
}
