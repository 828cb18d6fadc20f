package sasl

import (
	"strings"
	"testing"

	"kafgo/internal/scram"
)

// FuzzParseClientFirst: any input parses or errors, never panics, and what
// parses re-encodes to a message that parses the same.
func FuzzParseClientFirst(f *testing.F) {
	for _, s := range []string{"n,,n=user,r=rOprNGfwEbeRWgbNEkqO", "n,a=admin,n=alice,r=x,tokenauth=true", "n,,m=ext,n=a=2Cb=3Dc,r=nonce", "y,,n=u,r=a", "n,,n=u=2"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		cf, err := ParseClientFirst(msg)
		if err != nil {
			return
		}
		if cf.Username == "" || cf.Nonce == "" || strings.ContainsRune(cf.Nonce, ',') {
			t.Fatalf("accepted %q as %+v", msg, cf)
		}
		again, err := ParseClientFirst([]byte("n,,n=" + EncodeSaslname(cf.Username) + ",r=" + cf.Nonce))
		if err != nil || again.Username != cf.Username {
			t.Fatalf("re-encoded %q: %+v %v", cf.Username, again, err)
		}
	})
}

// FuzzParseClientFinal: any input parses or errors; accepted messages end in
// their proof.
func FuzzParseClientFinal(f *testing.F) {
	for _, s := range []string{"c=biws,r=abc%def,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "c=biws,r=a,x=y,p=", "c=,r=a,p=AA==", "c=biws,r=a"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		cf, err := ParseClientFinal(msg)
		if err != nil {
			return
		}
		if !strings.HasPrefix(string(msg), cf.WithoutProof+",p=") {
			t.Fatalf("without-proof %q of %q", cf.WithoutProof, msg)
		}
	})
}

// FuzzSessionTokens feeds arbitrary tokens to every mechanism through
// SaslAuthenticate: no panic, and no success without the password.
func FuzzSessionTokens(f *testing.F) {
	f.Add(uint8(0), []byte("\x00alice\x00wrong"), []byte(nil))
	f.Add(uint8(1), []byte("n,,n=bob,r=abc"), []byte("c=biws,r=abc,p=AAAA"))
	f.Add(uint8(2), []byte("n,,n=bob,r=a"), []byte("c=biws,r=a,p="))
	f.Fuzz(func(t *testing.T, which uint8, first, second []byte) {
		cfg := fuzzConfig(t)
		s := NewSession(cfg, nil)
		mech := cfg.Mechanisms[int(which)%len(cfg.Mechanisms)]
		s.Handshake(1, mech)
		for _, tok := range [][]byte{first, second} {
			res := s.Authenticate(1, tok)
			if res.ErrorCode != 0 {
				return
			}
		}
		if s.Phase() == PhaseComplete && mech != Plain {
			t.Fatalf("SCRAM completed from fuzz input %q %q", first, second)
		}
		if s.Phase() == PhaseComplete && mech == Plain && !strings.HasSuffix(string(first), "\x00alice-pw") {
			t.Fatalf("PLAIN accepted %q", first)
		}
	})
}

var fuzzCreds = func() map[string]scram.Credential {
	m := map[string]scram.Credential{}
	for _, mech := range scram.Mechanisms {
		c, _ := mech.NewCredential("bob-pw", []byte("salt"), 4096)
		m[mech.Name] = c
	}
	return m
}()

func fuzzConfig(t *testing.T) *Config {
	return &Config{
		Mechanisms: []string{Plain, ScramSHA256, ScramSHA512},
		PlainUsers: map[string]string{"alice": "alice-pw"},
		Scram: func(m, u string) (scram.Credential, bool) {
			c, ok := fuzzCreds[m]
			return c, ok && u == "bob"
		},
	}
}
