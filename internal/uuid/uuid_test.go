package uuid

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	tests := []struct {
		name string
		text string
		hex  string
	}{
		{"zero", "AAAAAAAAAAAAAAAAAAAAAA", "00000000000000000000000000000000"},
		{"metadata topic", "AAAAAAAAAAAAAAAAAAAAAQ", "00000000000000000000000000000001"},
		{"reference topic id", "3s3o9J7JRYCO1d3n7uFvHg", "decde8f49ec945808ed5dde7eee16f1e"},
		{"url-safe alphabet", "-_-_-_-_-_-_-_-_-_-_-w", "fbffbffbffbffbffbffbffbffbffbffb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := Parse(tc.text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.text, err)
			}
			if got := hex.EncodeToString(u[:]); got != tc.hex {
				t.Fatalf("Parse(%q) = %s, want %s", tc.text, got, tc.hex)
			}
			if got := u.String(); got != tc.text {
				t.Fatalf("String() = %q, want %q", got, tc.text)
			}
			padded, err := Parse(tc.text + "==")
			if err != nil || padded != u {
				t.Fatalf("Parse(padded) = %v, %v; want %v", padded, err, u)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{
		"",
		"short",
		"3s3o9J7JRYCO1d3n7uFvH",   // 21 chars
		"3s3o9J7JRYCO1d3n7uFvHgA", // 23 chars
		"3s3o9J7JRYCO1d3n7uFv+g",  // std alphabet, not URL-safe
		"3s3o9J7JRYCO1d3n7uFv/g",
		"3s3o9J7JRYCO1d3n7uFvH!",
		"3s3o9J7JRYCO1d3n7uFvHh", // non-zero trailing bits: not canonical
	} {
		t.Run(s, func(t *testing.T) {
			if _, err := Parse(s); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q) error = %v, want ErrInvalid", s, err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	seen := make(map[UUID]bool)
	for range 2000 {
		u, err := New()
		if err != nil {
			t.Fatal(err)
		}
		s := u.String()
		if len(s) != 22 || strings.HasPrefix(s, "-") {
			t.Fatalf("New() = %q: want 22 chars not starting with '-'", s)
		}
		if u == Zero || u == MetadataTopicID {
			t.Fatalf("New() returned reserved id %q", s)
		}
		if u[6]>>4 != 4 || u[8]>>6 != 2 {
			t.Fatalf("New() = %x: want version 4, IETF variant", u[:])
		}
		if seen[u] {
			t.Fatalf("New() repeated %q", s)
		}
		seen[u] = true
		back, err := Parse(s)
		if err != nil || back != u {
			t.Fatalf("round trip %q: %v, %v", s, back, err)
		}
	}
}

func TestText(t *testing.T) {
	u := MustNew()
	b, err := u.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var v UUID
	if err := v.UnmarshalText(b); err != nil || v != u {
		t.Fatalf("UnmarshalText(%s) = %v, %v", b, v, err)
	}
	if err := v.UnmarshalText([]byte("nope")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("UnmarshalText(nope) = %v", err)
	}
}
