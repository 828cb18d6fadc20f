package meta

import (
	"errors"
	"testing"
	"time"
)

func TestValidatePath(t *testing.T) {
	cases := []struct {
		path       string
		sequential bool
		ok         bool
	}{
		{"/", false, true},
		{"/a", false, true},
		{"/a/b.c-d_e", false, true},
		{"/brokers/topics/__consumer_offsets", false, true},
		{"/config/brokers/<default>", false, true},
		{"/zürich", false, true},
		{"/a/", true, true},
		{"/", true, true},
		{"", false, false},
		{"a", false, false},
		{"/a/", false, false},
		{"//a", false, false},
		{"/a//b", false, false},
		{"/a/./b", false, false},
		{"/a/../b", false, false},
		{"/..", false, false},
		{"/a\x00b", false, false},
		{"/a\nb", false, false},
		{"/a\u0085b", false, false},
		{"/a\ue000b", false, false},
		{"/a\ufffeb", false, false},
		{"/a\xffb", false, false}, // invalid UTF-8 decodes to U+FFFD
		{"/a//", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			err := validatePath(tc.path, tc.sequential)
			if tc.ok != (err == nil) {
				t.Fatalf("validatePath(%q, %v) = %v, want ok=%v", tc.path, tc.sequential, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("error %v does not wrap ErrInvalidPath", err)
			}
		})
	}
}

func TestPathHelpers(t *testing.T) {
	cases := []struct {
		path, parent, base string
	}{
		{"/", "", ""},
		{"/a", "/", "a"},
		{"/a/b/c", "/a/b", "c"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			if got := ParentPath(tc.path); got != tc.parent {
				t.Fatalf("ParentPath = %q, want %q", got, tc.parent)
			}
			if got := BaseName(tc.path); got != tc.base {
				t.Fatalf("BaseName = %q, want %q", got, tc.base)
			}
			if tc.parent != "" && JoinPath(tc.parent, tc.base) != tc.path {
				t.Fatalf("JoinPath(%q, %q) = %q", tc.parent, tc.base, JoinPath(tc.parent, tc.base))
			}
		})
	}
	for _, tc := range []struct {
		name string
		want int64
		ok   bool
	}{
		{"isr_change_0000000042", 42, true},
		{"/config/changes/config_change_0000000000", 0, true},
		{"0000000007", 7, true},
		{"short", 0, false},
		{"config_change_00000000x1", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SequenceNumber(tc.name)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("SequenceNumber(%q) = %d, %v", tc.name, got, err)
			}
		})
	}
}

func TestSessionFeed(t *testing.T) {
	var f sessionFeed
	a, b := f.subscribe(), f.subscribe()
	// Publishing never blocks, even with nobody reading yet.
	for range 100 {
		f.publish(SessionDisconnected)
	}
	f.publish(SessionExpired)
	f.publish(SessionConnected)
	for _, ch := range []<-chan SessionState{a, b} {
		var got []SessionState
		timeout := time.After(10 * time.Second)
		for len(got) < 102 {
			select {
			case st := <-ch:
				got = append(got, st)
			case <-timeout:
				t.Fatalf("only %d of 102 states delivered", len(got))
			}
		}
		if got[100] != SessionExpired || got[101] != SessionConnected {
			t.Fatalf("order lost: tail %v", got[98:])
		}
	}
	f.close()
	for _, ch := range []<-chan SessionState{a, b, f.subscribe()} {
		select {
		case _, ok := <-ch:
			if ok {
				t.Fatal("state delivered after close")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("channel not closed by close")
		}
	}
	f.publish(SessionConnected) // after close: dropped, no panic
}
