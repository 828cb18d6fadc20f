package jaas

import (
	"errors"
	"testing"
)

func TestParsePlain(t *testing.T) {
	m, err := ParseOne(`org.apache.kafka.common.security.plain.PlainLoginModule required
		username="admin" password="admin-secret" // the broker's own
		user_admin="admin-secret" /* users */ user_alice="al\"ice" user_bob=bob-pw;`)
	if err != nil {
		t.Fatal(err)
	}
	if m.Class != PlainLoginModule || m.Flag != "required" {
		t.Fatalf("module %q flag %q", m.Class, m.Flag)
	}
	u, p, ok := m.Credentials()
	if !ok || u != "admin" || p != "admin-secret" {
		t.Fatalf("credentials %q %q %v", u, p, ok)
	}
	users := m.PlainUsers()
	want := map[string]string{"admin": "admin-secret", "alice": `al"ice`, "bob": "bob-pw"}
	if len(users) != len(want) {
		t.Fatalf("users %v", users)
	}
	for k, v := range want {
		if users[k] != v {
			t.Fatalf("user %s: %q, want %q", k, users[k], v)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []string{
		``,
		`a.B required username="x"`,              // no ';'
		`a.B mandatory;`,                         // bad flag
		`a.B required username;`,                 // no '='
		`a.B required username=;`,                // no value
		`a.B required username="x;`,              // unterminated
		`a.B required; c.D optional;`,            // two modules for ParseOne
		`"a.B" required;`,                        // class quoted
		`a.B required /* never closed ;`,         // comment
		`a.B required username="x` + "\n" + `";`, // quote across lines
	} {
		if _, err := ParseOne(tc); !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: err %v, want ErrSyntax", tc, err)
		}
	}
}

func TestParseSeveral(t *testing.T) {
	ms, err := Parse(`a.B required x=1; c.D optional y='two words';`)
	if err != nil || len(ms) != 2 {
		t.Fatalf("%v %v", ms, err)
	}
	if ms[1].Options["y"] != "two words" {
		t.Fatalf("y = %q", ms[1].Options["y"])
	}
}
