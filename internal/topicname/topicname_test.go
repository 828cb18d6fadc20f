package topicname

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"orders", true},
		{"a.b_c-D9", true},
		{"", false},
		{".", false},
		{"..", false},
		{"has space", false},
		{"slash/no", false},
		{strings.Repeat("x", MaxLength), true},
		{strings.Repeat("x", MaxLength+1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Validate(tc.name); (err == nil) != tc.ok {
				t.Fatalf("Validate(%q) = %v, want ok=%v", tc.name, err, tc.ok)
			}
		})
	}
}
