package meta_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"kafgo/broker/meta"
)

// eventWait bounds every wait for a watch or session event. ZooKeeper on a
// busy 2-core machine can take a while; a correct store is far faster.
const eventWait = 20 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

// waitEvent receives the one event of a watch and checks the channel is
// closed right after it, which is what "fires once" means here.
func waitEvent(t *testing.T, ch <-chan meta.Event, want meta.EventType, path string) meta.Event {
	t.Helper()
	if ch == nil {
		t.Fatal("nil watch channel")
	}
	var ev meta.Event
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatalf("watch on %s closed without an event", path)
		}
		ev = e
	case <-time.After(eventWait):
		t.Fatalf("no %v event on %s within %v", want, path, eventWait)
	}
	if ev.Type != want || ev.Path != path {
		t.Fatalf("event = %v %q (err %v), want %v %q", ev.Type, ev.Path, ev.Err, want, path)
	}
	select {
	case e, ok := <-ch:
		if ok {
			t.Fatalf("second event %v on a one-shot watch", e)
		}
	case <-time.After(eventWait):
		t.Fatalf("watch channel on %s not closed after its event", path)
	}
	return ev
}

// waitStates reads session states until it has seen want in order; other
// states in between (Disconnected while a client redials) are allowed.
func waitStates(t *testing.T, ch <-chan meta.SessionState, want ...meta.SessionState) {
	t.Helper()
	deadline := time.After(eventWait)
	var seen []meta.SessionState
	for len(want) > 0 {
		select {
		case st, ok := <-ch:
			if !ok {
				t.Fatalf("session channel closed; saw %v, still waiting for %v", seen, want)
			}
			seen = append(seen, st)
			if st == want[0] {
				want = want[1:]
			}
		case <-deadline:
			t.Fatalf("session states: saw %v, still waiting for %v", seen, want)
		}
	}
}

func getData(t *testing.T, s meta.Store, path string) ([]byte, meta.Stat) {
	t.Helper()
	data, st, err := s.Get(testCtx(t), path)
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	return data, st
}

func wantData(t *testing.T, s meta.Store, path, want string) meta.Stat {
	t.Helper()
	data, st := getData(t, s, path)
	if !bytes.Equal(data, []byte(want)) {
		t.Fatalf("get %s = %q, want %q", path, data, want)
	}
	return st
}

func wantMissing(t *testing.T, s meta.Store, path string) {
	t.Helper()
	ok, _, err := s.Exists(testCtx(t), path)
	must(t, err)
	if ok {
		t.Fatalf("%s exists, want it gone", path)
	}
}
