package scram

import (
	"strings"
	"testing"
)

func TestCredentialString(t *testing.T) {
	c, err := SHA512.NewCredential("secret", []byte("salt"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	s := c.String()
	if !strings.HasPrefix(s, "salt=c2FsdA==,stored_key=") || !strings.HasSuffix(s, ",iterations=4096") {
		t.Fatalf("format %q", s)
	}
	back, err := ParseCredential(s)
	if err != nil || back.String() != s {
		t.Fatalf("round trip %q %v", back.String(), err)
	}
	for _, bad := range []string{"", "salt=AA==", "salt=AA==,stored_key=AA==,server_key=AA==,iterations=x", "salt=!!,stored_key=AA==,server_key=AA==,iterations=1", "junk"} {
		if _, err := ParseCredential(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestRFC7677Credential: the stored and server keys of RFC 7677's example
// (user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096
// iterations), which its server signature is computed from.
func TestRFC7677Credential(t *testing.T) {
	c, err := ParseCredential("salt=W22ZaJ0SNY7soEsUEjb6gQ==,stored_key=WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=,server_key=wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=,iterations=4096")
	if err != nil {
		t.Fatal(err)
	}
	got, err := SHA256.NewCredential("pencil", c.Salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != c.String() {
		t.Fatalf("derived %s\nwant    %s", got, c)
	}
	if !SHA256.Verify(c, "pencil") || SHA256.Verify(c, "pencil2") || SHA512.Verify(c, "pencil") {
		t.Fatal("Verify disagrees with the derivation")
	}
}

// TestGenerate: a generated credential has a fresh base-36 ASCII salt (as
// Kafka's ScramFormatter makes one), the iterations asked for, and verifies
// only its own password.
func TestGenerate(t *testing.T) {
	a, err := SHA512.Generate("admin-secret", 8192)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SHA512.Generate("admin-secret", 8192)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Salt) == string(b.Salt) {
		t.Fatal("two credentials share a salt")
	}
	for _, c := range a.Salt {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			t.Fatalf("salt %q is not base 36", a.Salt)
		}
	}
	if a.Iterations != 8192 || len(a.StoredKey) != 64 || len(a.ServerKey) != 64 {
		t.Fatalf("credential %+v", a)
	}
	if !SHA512.Verify(a, "admin-secret") || SHA512.Verify(a, "admin-secreT") {
		t.Fatal("Verify")
	}
}

func TestByNameAndCode(t *testing.T) {
	for _, m := range Mechanisms {
		if n, ok := ByName(m.Name); !ok || n.Code != m.Code {
			t.Errorf("ByName(%s)", m.Name)
		}
		if c, ok := ByCode(m.Code); !ok || c.Name != m.Name {
			t.Errorf("ByCode(%d)", m.Code)
		}
	}
	if _, ok := ByName("PLAIN"); ok {
		t.Error("PLAIN is not SCRAM")
	}
	if _, ok := ByCode(0); ok {
		t.Error("code 0 is UNKNOWN")
	}
}

// FuzzParseCredential: the stored form parses or errors, and what parses
// formats back to something that parses equal.
func FuzzParseCredential(f *testing.F) {
	f.Add("salt=c2FsdA==,stored_key=AAAA,server_key=AAAA,iterations=4096")
	f.Add("iterations=1,salt=,stored_key=,server_key=")
	f.Add("salt=c2FsdA==")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCredential(s)
		if err != nil {
			return
		}
		back, err := ParseCredential(c.String())
		if err != nil || back.String() != c.String() {
			t.Fatalf("%q -> %q -> %v", s, c.String(), err)
		}
	})
}
