package principal

import "testing"

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Principal
		bad  bool
	}{
		{in: "User:alice", want: User("alice")},
		{in: "User:CN=broker,OU=kafka", want: User("CN=broker,OU=kafka")},
		{in: "Group:ops:east", want: Principal{Type: "Group", Name: "ops:east"}},
		{in: "alice", bad: true},
		{in: "User:", bad: true},
		{in: ":x", bad: true},
	} {
		got, err := Parse(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("Parse(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != tc.in {
			t.Errorf("Parse(%q) = %v (%q), %v; want %v", tc.in, got, got.String(), err, tc.want)
		}
	}
	if Anonymous.String() != "User:ANONYMOUS" {
		t.Fatalf("Anonymous = %s", Anonymous)
	}
}
