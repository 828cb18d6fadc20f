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

func TestIsInternal(t *testing.T) {
	for name, want := range map[string]bool{"__consumer_offsets": true, "__transaction_state": true, "__consumer_offsets_x": false, "orders": false, "": false} {
		if got := IsInternal(name); got != want {
			t.Errorf("IsInternal(%q) = %v", name, got)
		}
	}
	if len(Internal) != 2 {
		t.Errorf("Internal = %v", Internal)
	}
}
