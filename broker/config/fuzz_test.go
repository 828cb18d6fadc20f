package config

import (
	"strings"
	"testing"
)

// FuzzParseYAML feeds arbitrary bytes to the config loader: it must never
// panic, and every refusal must be a "config: " error; a success must
// describe itself without panicking.
func FuzzParseYAML(f *testing.F) {
	f.Add([]byte("broker.id: 0\nlisteners: PLAINTEXT://127.0.0.1:9092\nlog.dirs: ./data\n"))
	f.Add([]byte("log:\n  dirs: [/a, /b]\n  retention: {hours: 1}\n"))
	f.Add([]byte("a: &x {b: *x}\n"))
	f.Add([]byte("listener.security.protocol.map: {PLAINTEXT: PLAINTEXT}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseYAML("fuzz.yaml", data)
		if err != nil {
			for _, e := range flatten(err) {
				if !strings.HasPrefix(e.Error(), "config: ") {
					t.Fatalf("error without prefix: %v", e)
				}
			}
			return
		}
		_ = b.Values()
		_ = b.DescribeTopic(nil)
	})
}
