package sasl

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ScramCredential is what the broker stores for a SCRAM user: never the
// password, only what verifies a proof (StoredKey) and signs the answer
// (ServerKey).
type ScramCredential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int
}

// ErrCredential is wrapped by credential parse errors.
var ErrCredential = errors.New("sasl: invalid SCRAM credential")

// String formats the credential as Kafka stores it in /config/users/<user>
// (ScramCredentialUtils.credentialToString):
//
//	salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>
func (c ScramCredential) String() string {
	enc := base64.StdEncoding.EncodeToString
	return "salt=" + enc(c.Salt) + ",stored_key=" + enc(c.StoredKey) + ",server_key=" + enc(c.ServerKey) + ",iterations=" + strconv.Itoa(c.Iterations)
}

// ParseCredential parses the stored form; all four fields are required.
func ParseCredential(s string) (ScramCredential, error) {
	var c ScramCredential
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
func (m ScramMechanism) SaltedPassword(password string, salt []byte, iterations int) ([]byte, error) {
	return pbkdf2.Key(m.Hash, password, salt, iterations, m.Hash().Size())
}

func (m ScramMechanism) hmac(key []byte, msg string) []byte {
	h := hmac.New(m.Hash, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

func (m ScramMechanism) digest(b []byte) []byte {
	h := m.Hash()
	h.Write(b)
	return h.Sum(nil)
}

// CredentialFromSalted derives the stored credential from a salted
// password, as the broker does for AlterUserScramCredentials.
func (m ScramMechanism) CredentialFromSalted(salted, salt []byte, iterations int) ScramCredential {
	clientKey := m.hmac(salted, "Client Key")
	return ScramCredential{
		Salt:       append([]byte(nil), salt...),
		StoredKey:  m.digest(clientKey),
		ServerKey:  m.hmac(salted, "Server Key"),
		Iterations: iterations,
	}
}

// NewCredential derives a credential from a password.
func (m ScramMechanism) NewCredential(password string, salt []byte, iterations int) (ScramCredential, error) {
	sp, err := m.SaltedPassword(password, salt, iterations)
	if err != nil {
		return ScramCredential{}, err
	}
	return m.CredentialFromSalted(sp, salt, iterations), nil
}

// RandomString is Kafka's ScramFormatter.secureRandomString: a random
// 130-bit number in base 36. Used for server nonces and (as ASCII bytes) for
// salts.
func RandomString() string {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 130))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n.Text(36)
}
