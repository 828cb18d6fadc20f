// Package scram holds what Kafka's brokers and its kafka-configs tool share
// about SCRAM credentials (RFC 5802, RFC 7677): the mechanisms, the
// derivation of a stored credential from a password, and the string form
// Kafka keeps in /config/users/<user> (ScramCredentialUtils):
//
//	salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>
//
// with SaltedPassword = PBKDF2-HMAC-H(password, salt, iterations),
// StoredKey = H(HMAC(SaltedPassword, "Client Key")) and ServerKey =
// HMAC(SaltedPassword, "Server Key"). The password itself is never stored.
// A salt made here is Kafka's ScramFormatter's: the ASCII bytes of a random
// 130-bit number in base 36.
//
// It is a leaf: the broker's SASL server and credential store
// (broker/sasl, broker/credentials) and the client-side configs tool
// (kafgo configs --zookeeper) both import it.
package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"strconv"
	"strings"
)

// Mechanism describes one SCRAM variant (Kafka's ScramMechanism).
type Mechanism struct {
	Name          string // SCRAM-SHA-256, SCRAM-SHA-512: SASL name and /config/users key
	Code          int8   // AlterUserScramCredentials' mechanism byte
	Hash          func() hash.Hash
	MinIterations int
}

// MaxIterations is the most iterations AlterUserScramCredentials accepts.
const MaxIterations = 16384

// The SCRAM mechanisms, by Kafka's wire code: 1 SCRAM-SHA-256, 2
// SCRAM-SHA-512 (0 is UNKNOWN).
var (
	SHA256 = Mechanism{Name: "SCRAM-SHA-256", Code: 1, Hash: sha256.New, MinIterations: 4096}
	SHA512 = Mechanism{Name: "SCRAM-SHA-512", Code: 2, Hash: sha512.New, MinIterations: 4096}
)

// Mechanisms lists the SCRAM mechanisms in code order.
var Mechanisms = []Mechanism{SHA256, SHA512}

// ByName finds a SCRAM mechanism by name.
func ByName(name string) (Mechanism, bool) {
	for _, m := range Mechanisms {
		if m.Name == name {
			return m, true
		}
	}
	return Mechanism{}, false
}

// ByCode finds a SCRAM mechanism by its wire code.
func ByCode(code int8) (Mechanism, bool) {
	for _, m := range Mechanisms {
		if m.Code == code {
			return m, true
		}
	}
	return Mechanism{}, false
}

// Credential is what a broker stores for a SCRAM user: never the password,
// only what verifies a proof (StoredKey) and signs the answer (ServerKey).
type Credential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int
}

// ErrCredential is wrapped by credential parse errors.
var ErrCredential = errors.New("scram: invalid SCRAM credential")

// String formats the credential as Kafka stores it in /config/users/<user>
// (ScramCredentialUtils.credentialToString).
func (c Credential) String() string {
	enc := base64.StdEncoding.EncodeToString
	return "salt=" + enc(c.Salt) + ",stored_key=" + enc(c.StoredKey) + ",server_key=" + enc(c.ServerKey) + ",iterations=" + strconv.Itoa(c.Iterations)
}

// ParseCredential parses the stored form; all four fields are required,
// others are ignored.
func ParseCredential(s string) (Credential, error) {
	var c Credential
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return c, fmt.Errorf("%w: %q is not key=value", ErrCredential, part)
		}
		var err error
		switch k {
		case "salt":
			c.Salt, err = base64.StdEncoding.DecodeString(v)
		case "stored_key":
			c.StoredKey, err = base64.StdEncoding.DecodeString(v)
		case "server_key":
			c.ServerKey, err = base64.StdEncoding.DecodeString(v)
		case "iterations":
			c.Iterations, err = strconv.Atoi(v)
		default:
			continue
		}
		if err != nil {
			return c, fmt.Errorf("%w: %s: %v", ErrCredential, k, err)
		}
		seen[k] = true
	}
	for _, k := range []string{"salt", "stored_key", "server_key", "iterations"} {
		if !seen[k] {
			return c, fmt.Errorf("%w: %s missing", ErrCredential, k)
		}
	}
	return c, nil
}

// SaltedPassword is RFC 5802's Hi(password, salt, iterations): PBKDF2 with
// HMAC over the mechanism's hash.
func (m Mechanism) SaltedPassword(password string, salt []byte, iterations int) ([]byte, error) {
	return pbkdf2.Key(m.Hash, password, salt, iterations, m.Hash().Size())
}

// HMAC is RFC 5802's HMAC(key, msg) over the mechanism's hash.
func (m Mechanism) HMAC(key []byte, msg string) []byte {
	h := hmac.New(m.Hash, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// Digest is RFC 5802's H(b).
func (m Mechanism) Digest(b []byte) []byte {
	h := m.Hash()
	h.Write(b)
	return h.Sum(nil)
}

// CredentialFromSalted derives the stored credential from a salted
// password, as the broker does for AlterUserScramCredentials, where the
// client sends the salted password.
func (m Mechanism) CredentialFromSalted(salted, salt []byte, iterations int) Credential {
	return Credential{
		Salt:       append([]byte(nil), salt...),
		StoredKey:  m.Digest(m.HMAC(salted, "Client Key")),
		ServerKey:  m.HMAC(salted, "Server Key"),
		Iterations: iterations,
	}
}

// NewCredential derives a credential from a password and a given salt.
func (m Mechanism) NewCredential(password string, salt []byte, iterations int) (Credential, error) {
	sp, err := m.SaltedPassword(password, salt, iterations)
	if err != nil {
		return Credential{}, fmt.Errorf("scram: %s: %w", m.Name, err)
	}
	return m.CredentialFromSalted(sp, salt, iterations), nil
}

// Generate derives a credential from a password with a fresh random salt,
// as Kafka's ScramFormatter.generateCredential does for kafka-configs
// --zookeeper.
func (m Mechanism) Generate(password string, iterations int) (Credential, error) {
	return m.NewCredential(password, []byte(RandomString()), iterations)
}

// Verify reports whether password matches the credential.
func (m Mechanism) Verify(c Credential, password string) bool {
	want, err := m.NewCredential(password, c.Salt, c.Iterations)
	return err == nil && hmac.Equal(want.StoredKey, c.StoredKey) && hmac.Equal(want.ServerKey, c.ServerKey)
}

// RandomString is Kafka's ScramFormatter.secureRandomString: a random
// 130-bit number in base 36. Used for server nonces and (as ASCII bytes)
// for salts.
func RandomString() string {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 130))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n.Text(36)
}
