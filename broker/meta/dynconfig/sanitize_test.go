package dynconfig

import "testing"

// TestSanitize pins Kafka's Sanitizer on the names quota and credential
// znodes carry: principal names with spaces, DNs, '*', '+' and non-ASCII
// (Kafka's SanitizerTest cases).
func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"alice", "alice"},
		{"client-id_1.2", "client-id_1.2"},
		{"user 1", "user%201"},
		{"a*b", "a%2Ab"},
		{"a+b", "a%2Bb"},
		{"CN=Some User,O=Kafka", "CN%3DSome%20User%2CO%3DKafka"},
		{"a/b:c", "a%2Fb%3Ac"},
		{"\u0001\u0080", "%01%C2%80"},
		{"<default>", "%3Cdefault%3E"},
		{"CN=Some characters !@#$%&*()_-+=';:,/~", "CN%3DSome%20characters%20%21%40%23%24%25%26%2A%28%29_-%2B%3D%27%3B%3A%2C%2F%7E"},
		{"alice@EXAMPLE.COM", "alice%40EXAMPLE.COM"},
		{"øåæ", "%C3%B8%C3%A5%C3%A6"},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := Desanitize(tc.want)
		if err != nil || back != tc.in {
			t.Errorf("Desanitize(%q) = %q, %v; want %q", tc.want, back, err, tc.in)
		}
	}
	// URLDecoder reads '+' as a space, as a name sanitized by an older tool
	// may carry it.
	if got, err := Desanitize("user+1"); err != nil || got != "user 1" {
		t.Errorf("Desanitize(user+1) = %q, %v", got, err)
	}
	if _, err := Desanitize("bad%zz"); err == nil {
		t.Error("Desanitize accepted a malformed escape")
	}
}
