package sasl

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	fsasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"kafgo/broker/principal"
	"kafgo/internal/scram"
)

// TestScramRFC7677 replays the SCRAM-SHA-256 example of RFC 7677 section 3.
func TestScramRFC7677(t *testing.T) {
	defer func(f func() string) { serverNonce = f }(serverNonce)
	serverNonce = func() string { return "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0" }
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	cred, err := scram.SHA256.NewCredential("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	srv := &scramServer{mech: scram.SHA256, lookup: func(m, u string) (scram.Credential, bool) { return cred, m == ScramSHA256 && u == "user" }}
	first, done, err := srv.step([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if err != nil || done {
		t.Fatal(err, done)
	}
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; string(first) != want {
		t.Fatalf("server-first %q", first)
	}
	final, done, err := srv.step([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if err != nil || !done {
		t.Fatal(err, done)
	}
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; string(final) != want {
		t.Fatalf("server-final %q", final)
	}
	if srv.authorizationID() != "user" {
		t.Fatal(srv.authorizationID())
	}
}

type users struct {
	plain map[string]string
	scram map[string]scram.Credential // mech+"/"+user
}

func testConfig(t *testing.T) *Config {
	t.Helper()
	u := users{plain: map[string]string{"alice": "alice-pw"}, scram: map[string]scram.Credential{}}
	for _, m := range scram.Mechanisms {
		c, err := m.NewCredential("bob-pw", []byte(scram.RandomString()), 4096)
		if err != nil {
			t.Fatal(err)
		}
		u.scram[m.Name+"/bob"] = c
		low, _ := m.NewCredential("low-pw", []byte("s"), 1000)
		u.scram[m.Name+"/low"] = low
	}
	return &Config{
		Mechanisms: []string{Plain, ScramSHA256, ScramSHA512},
		PlainUsers: u.plain,
		Scram: func(m, user string) (scram.Credential, bool) {
			c, ok := u.scram[m+"/"+user]
			return c, ok
		},
	}
}

// run drives a franz-go client mechanism against a session over
// SaslHandshake v1 + SaslAuthenticate, as kgo does.
func run(t *testing.T, s *Session, mech fsasl.Mechanism) (AuthResult, HandshakeResult) {
	t.Helper()
	if err := s.Admit(17, time.Now()); err != nil {
		t.Fatalf("handshake not admitted: %v", err)
	}
	hs := s.Handshake(1, mech.Name())
	if hs.ErrorCode != 0 {
		return AuthResult{}, hs
	}
	sess, msg, err := mech.Authenticate(context.Background(), "broker:9092")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := s.Admit(36, time.Now()); err != nil {
			t.Fatalf("authenticate not admitted: %v", err)
		}
		res := s.Authenticate(1, msg)
		if res.ErrorCode != 0 {
			return res, hs
		}
		done, next, err := sess.Challenge(res.AuthBytes)
		if err != nil {
			t.Fatalf("client rejected the server: %v", err)
		}
		if done {
			return res, hs
		}
		msg = next
	}
	t.Fatal("exchange did not finish")
	return AuthResult{}, hs
}

func TestSessionMechanisms(t *testing.T) {
	cfg := testConfig(t)
	generic := func(m string) string {
		return "Authentication failed during authentication due to invalid credentials with SASL mechanism " + m
	}
	for _, tc := range []struct {
		name    string
		mech    fsasl.Mechanism
		wantErr string // "" = success
		user    string
	}{
		{"plain", plain.Auth{User: "alice", Pass: "alice-pw"}.AsMechanism(), "", "alice"},
		{"plain wrong password", plain.Auth{User: "alice", Pass: "nope"}.AsMechanism(), "Authentication failed: Invalid username or password", ""},
		{"plain unknown user", plain.Auth{User: "mallory", Pass: "x"}.AsMechanism(), "Authentication failed: Invalid username or password", ""},
		{"plain authzid", plain.Auth{Zid: "admin", User: "alice", Pass: "alice-pw"}.AsMechanism(), "Authentication failed: Client requested an authorization id that is different from username", ""},
		{"scram-256", fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism(), "", "bob"},
		{"scram-512", fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha512Mechanism(), "", "bob"},
		{"scram wrong password", fscram.Auth{User: "bob", Pass: "nope"}.AsSha512Mechanism(), generic(ScramSHA512), ""},
		{"scram unknown user", fscram.Auth{User: "mallory", Pass: "x"}.AsSha256Mechanism(), generic(ScramSHA256), ""},
		{"scram too few iterations", fscram.Auth{User: "low", Pass: "low-pw"}.AsSha256Mechanism(), generic(ScramSHA256), ""},
		{"scram authzid", fscram.Auth{Zid: "admin", User: "bob", Pass: "bob-pw"}.AsSha256Mechanism(), "Authentication failed: Client requested an authorization id that is different from username", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got principal.Principal
			s := NewSession(cfg, func(p principal.Principal) { got = p })
			res, _ := run(t, s, tc.mech)
			if tc.wantErr == "" {
				if res.ErrorCode != 0 || s.Phase() != PhaseComplete || got != principal.User(tc.user) {
					t.Fatalf("code %d phase %s principal %v", res.ErrorCode, s.Phase(), got)
				}
				return
			}
			if res.ErrorCode != kerr.SaslAuthenticationFailed.Code || res.ErrorMessage == nil || *res.ErrorMessage != tc.wantErr || !res.Close {
				t.Fatalf("code %d msg %v close %v", res.ErrorCode, res.ErrorMessage, res.Close)
			}
			if s.Phase() != PhaseFailed || got != (principal.Principal{}) {
				t.Fatalf("phase %s principal %v", s.Phase(), got)
			}
		})
	}
}

func TestSessionHandshakeRules(t *testing.T) {
	cfg := testConfig(t)
	cfg.Mechanisms = []string{ScramSHA512}
	s := NewSession(cfg, nil)
	now := time.Now()
	if err := s.Admit(3, now); err == nil {
		t.Fatal("Metadata admitted before authentication")
	}
	s = NewSession(cfg, nil)
	if s.Admit(18, now) != nil || s.Admit(18, now) == nil {
		t.Fatal("ApiVersions must be admitted exactly once")
	}
	hs := s.Handshake(1, Plain)
	if hs.ErrorCode != kerr.UnsupportedSaslMechanism.Code || !hs.Close || len(hs.Mechanisms) != 1 || hs.Mechanisms[0] != ScramSHA512 {
		t.Fatalf("%+v", hs)
	}
	// SaslAuthenticate after completion: ILLEGAL_SASL_STATE, connection kept.
	s = NewSession(testConfig(t), nil)
	if res, _ := run(t, s, plain.Auth{User: "alice", Pass: "alice-pw"}.AsMechanism()); res.ErrorCode != 0 {
		t.Fatal(res.ErrorCode)
	}
	res := s.Authenticate(1, []byte("x"))
	if res.ErrorCode != kerr.IllegalSaslState.Code || res.Close || *res.ErrorMessage != "SaslAuthenticate request received after successful authentication" {
		t.Fatalf("%+v", res)
	}
	// During AUTHENTICATE only SaslAuthenticate is admitted.
	s = NewSession(testConfig(t), nil)
	s.Handshake(1, ScramSHA256)
	if err := s.Admit(0, now); err == nil || !strings.Contains(err.Error(), "Unexpected Kafka request of type Produce during SASL authentication.") {
		t.Fatalf("%v", err)
	}
}

func TestSessionRawTokens(t *testing.T) {
	s := NewSession(testConfig(t), nil)
	if hs := s.Handshake(0, ScramSHA256); hs.ErrorCode != 0 || s.Phase() != PhaseRawToken {
		t.Fatalf("%+v %s", hs, s.Phase())
	}
	mech := fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism()
	sess, msg, _ := mech.Authenticate(context.Background(), "b")
	for s.Phase() == PhaseRawToken {
		resp, err := s.RawToken(msg)
		if err != nil {
			t.Fatal(err)
		}
		done, next, err := sess.Challenge(resp)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		msg = next
	}
	if s.Phase() != PhaseComplete {
		t.Fatal(s.Phase())
	}
	// PLAIN over raw tokens answers an empty token; a bad password closes.
	s = NewSession(testConfig(t), nil)
	s.Handshake(0, Plain)
	if resp, err := s.RawToken([]byte("\x00alice\x00alice-pw")); err != nil || len(resp) != 0 || resp == nil {
		t.Fatalf("%q %v", resp, err)
	}
	s = NewSession(testConfig(t), nil)
	s.Handshake(0, Plain)
	if _, err := s.RawToken([]byte("\x00alice\x00bad")); err == nil || s.Phase() != PhaseFailed {
		t.Fatal("bad password accepted")
	}
}

func TestSessionReauthentication(t *testing.T) {
	cfg := testConfig(t)
	now := time.Unix(1000, 0)
	cfg.Now = func() time.Time { return now }
	cfg.ReauthMs = map[string]int64{ScramSHA256: 60_000}
	var auths []principal.Principal
	s := NewSession(cfg, func(p principal.Principal) { auths = append(auths, p) })
	res, _ := run(t, s, fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism())
	if res.SessionLifetimeMs != 60_000 {
		t.Fatalf("lifetime %d", res.SessionLifetimeMs)
	}
	if err := s.Admit(3, now.Add(59*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Re-authenticate before expiry: the session is extended.
	now = now.Add(50 * time.Second)
	if res, _ = run(t, s, fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism()); res.ErrorCode != 0 || len(auths) != 2 {
		t.Fatalf("reauth: %+v %v", res, auths)
	}
	if err := s.Admit(3, now.Add(59*time.Second)); err != nil {
		t.Fatalf("extended session refused: %v", err)
	}
	if err := s.Admit(3, now.Add(61*time.Second)); err != ErrSessionExpired {
		t.Fatalf("expired session admitted: %v", err)
	}

	// Re-authentication may change neither mechanism nor principal.
	s = NewSession(cfg, nil)
	run(t, s, fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism())
	res, _ = run(t, s, fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha512Mechanism())
	if res.ErrorCode != kerr.SaslAuthenticationFailed.Code || *res.ErrorMessage != "SASL mechanism 'SCRAM-SHA-512' requested by client is not supported for re-authentication of mechanism 'SCRAM-SHA-256'" {
		t.Fatalf("%+v %v", res, *res.ErrorMessage)
	}
	s = NewSession(cfg, nil)
	run(t, s, plain.Auth{User: "alice", Pass: "alice-pw"}.AsMechanism())
	cfg.PlainUsers["carol"] = "carol-pw"
	res, _ = run(t, s, plain.Auth{User: "carol", Pass: "carol-pw"}.AsMechanism())
	if res.ErrorCode != kerr.SaslAuthenticationFailed.Code || *res.ErrorMessage != "Cannot change principals during re-authentication from User.alice: User.carol" {
		t.Fatalf("%+v", res)
	}
	// A failed re-authentication says so.
	s = NewSession(cfg, nil)
	run(t, s, fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism())
	res, _ = run(t, s, fscram.Auth{User: "bob", Pass: "wrong"}.AsSha256Mechanism())
	if *res.ErrorMessage != "Authentication failed during re-authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256" {
		t.Fatal(*res.ErrorMessage)
	}
}

func TestParseClientMessages(t *testing.T) {
	cf, err := ParseClientFirst([]byte("n,a=b=2Cx,n=u=3Dv,r=abc,ext=1"))
	if err != nil || cf.AuthzID != "b,x" || cf.Username != "u=v" || cf.Nonce != "abc" || cf.Extensions["ext"] != "1" || cf.GS2Header != "n,a=b=2Cx," || cf.Bare != "n=u=3Dv,r=abc,ext=1" {
		t.Fatalf("%+v %v", cf, err)
	}
	for _, bad := range []string{"", "y,,n=u,r=a", "p=x,,n=u,r=a", "n,,n=,r=a", "n,,n=u=2X,r=a", "n,,n=u", "n,,r=a,n=u", "n,,n=u,r=a b", "n,,n=é,r=a", "n,x,n=u,r=a"} {
		if _, err := ParseClientFirst([]byte(bad)); err == nil {
			t.Errorf("client-first %q accepted", bad)
		}
	}
	fin, err := ParseClientFinal([]byte("c=biws,r=abc,p=AAAA"))
	if err != nil || string(fin.ChannelBinding) != "n,," || fin.WithoutProof != "c=biws,r=abc" || len(fin.Proof) != 3 {
		t.Fatalf("%+v %v", fin, err)
	}
	for _, bad := range []string{"", "c=biws,r=abc", "c=bi,r=abc,p=AAAA", "c=biws,p=AAAA,r=abc", "c=biws,r=abc,p=A"} {
		if _, err := ParseClientFinal([]byte(bad)); err == nil {
			t.Errorf("client-final %q accepted", bad)
		}
	}
}

// TestScramNonceChecks: the final nonce must be the combined one; the
// form of librdkafka before 2.6.1 (client nonce repeated in front) is
// admitted, any other is refused.
func TestScramNonceChecks(t *testing.T) {
	cred, _ := scram.SHA256.NewCredential("pw", []byte("salt"), 4096)
	lookup := func(string, string) (scram.Credential, bool) { return cred, true }
	for name, tc := range map[string]struct {
		final func(cnonce, combined string) string
		ok    bool
	}{
		"exact":         {func(c, n string) string { return n }, true},
		"librdkafka":    {func(c, n string) string { return c + n }, true},
		"client only":   {func(c, n string) string { return c }, false},
		"other prefix":  {func(c, n string) string { return "x" + n }, false},
		"server suffix": {func(c, n string) string { return n[len(c):] }, false},
	} {
		t.Run(name, func(t *testing.T) {
			srv := &scramServer{mech: scram.SHA256, lookup: lookup}
			first, _, err := srv.step([]byte("n,,n=u,r=cnonce"))
			if err != nil {
				t.Fatal(err)
			}
			combined := strings.TrimPrefix(strings.Split(string(first), ",")[0], "r=")
			nonce := tc.final("cnonce", combined)
			without := "c=biws,r=" + nonce
			auth := "n=u,r=cnonce," + string(first) + "," + without
			sp, _ := scram.SHA256.SaltedPassword("pw", []byte("salt"), 4096)
			ck := scram.SHA256.HMAC(sp, "Client Key")
			sig := scram.SHA256.HMAC(scram.SHA256.Digest(ck), auth)
			proof := make([]byte, len(ck))
			for i := range ck {
				proof[i] = ck[i] ^ sig[i]
			}
			_, done, err := srv.step([]byte(without + ",p=" + base64.StdEncoding.EncodeToString(proof)))
			if tc.ok != (err == nil && done) {
				t.Fatalf("done %v err %v", done, err)
			}
		})
	}
}
