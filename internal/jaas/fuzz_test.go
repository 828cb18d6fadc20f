package jaas

import (
	"errors"
	"testing"
)

// FuzzParse: any text parses or fails with ErrSyntax, never panics, and a
// parsed module keeps the options it lists.
func FuzzParse(f *testing.F) {
	f.Add(`org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="a\"b" user_alice="x";`)
	f.Add(`a.B optional k=v; c.D sufficient /* c */ x='y'; // end`)
	f.Add(`a.B required k="unterminated`)
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		for _, m := range ms {
			if m.Class == "" || len(m.Order) != len(m.Options) {
				t.Fatalf("module %+v", m)
			}
		}
	})
}
