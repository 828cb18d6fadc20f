package znode

import "testing"

// TestSanitizeEntity uses the cases of Kafka's SanitizerTest plus the
// characters where Java's URLEncoder and Go's url.QueryEscape differ.
func TestSanitizeEntity(t *testing.T) {
	for name, want := range map[string]string{
		"user1":                                  "user1",
		"CN=Some characters !@#$%&*()_-+=';:,/~": "CN%3DSome%20characters%20%21%40%23%24%25%26%2A%28%29_-%2B%3D%27%3B%3A%2C%2F%7E",
		"alice@EXAMPLE.COM":                      "alice%40EXAMPLE.COM",
		"øåæ":                                    "%C3%B8%C3%A5%C3%A6",
	} {
		if got := SanitizeEntity(name); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", name, got, want)
		}
		back, err := DesanitizeEntity(SanitizeEntity(name))
		if err != nil || back != name {
			t.Errorf("round trip %q: %q %v", name, back, err)
		}
	}
	if UserConfigPath("a b") != "/config/users/a%20b" {
		t.Fatal(UserConfigPath("a b"))
	}
}
