package clientquota

import (
	"fmt"
	"testing"
)

// TestPrecedence sets quotas at all eight levels, then removes them from
// the most specific down, checking after each step which quota a request
// from alice/c1 gets and which tags its sensor has: Kafka's order.
func TestPrecedence(t *testing.T) {
	u, c := NamedPart("alice"), NamedPart("c1")
	levels := []struct {
		e    Entity
		tags tags
	}{
		{Entity{u, c}, tags{"alice", "c1"}},
		{Entity{u, DefaultPart}, tags{"alice", "c1"}},
		{Entity{User: u}, tags{user: "alice"}},
		{Entity{DefaultPart, c}, tags{"alice", "c1"}},
		{Entity{DefaultPart, DefaultPart}, tags{"alice", "c1"}},
		{Entity{User: DefaultPart}, tags{user: "alice"}},
		{Entity{Client: c}, tags{client: "c1"}},
		{Entity{Client: DefaultPart}, tags{client: "c1"}},
	}
	l := newLimits(Unlimited)
	for i, lv := range levels {
		l.set(lv.e, float64(i+1), true)
	}
	for i, lv := range levels {
		t.Run(fmt.Sprintf("level %d %s", i+1, lv.e), func(t *testing.T) {
			got := l.tagsFor("alice", "c1")
			if got != lv.tags {
				t.Fatalf("tags %+v, want %+v", got, lv.tags)
			}
			if lim := l.limit(got); lim != float64(i+1) {
				t.Fatalf("limit %v, want %v (level %d)", lim, i+1, i+1)
			}
		})
		l.set(lv.e, 0, false)
	}
	if got := l.tagsFor("alice", "c1"); got != (tags{client: "c1"}) || l.limit(got) != Unlimited {
		t.Fatalf("with nothing set: tags %+v limit %v, want client tags and no limit", got, l.limit(got))
	}
}

// TestPrecedenceOtherEntities: quotas of one user or client id do not
// leak to others, defaults do, and the static client-id default applies
// only below every dynamic level.
func TestPrecedenceOtherEntities(t *testing.T) {
	l := newLimits(5000)
	if !l.on() {
		t.Fatal("a static default did not enable the quota")
	}
	if got := l.limit(l.tagsFor("bob", "c9")); got != 5000 {
		t.Fatalf("static default: %v", got)
	}
	l.set(Entity{Client: NamedPart("c1")}, 100, true)
	if got := l.limit(l.tagsFor("bob", "c1")); got != 100 {
		t.Fatalf("client c1 quota for bob: %v", got)
	}
	if got := l.limit(l.tagsFor("bob", "c2")); got != 5000 {
		t.Fatalf("client c2 falls to the static default: %v", got)
	}
	// Only client-id quotas so far: every user of c1 shares one sensor.
	if a, b := l.tagsFor("alice", "c1"), l.tagsFor("bob", "c1"); a != b {
		t.Fatalf("client-only quotas: alice's tags %+v differ from bob's %+v", a, b)
	}
	l.set(Entity{User: NamedPart("alice")}, 200, true)
	if got := l.tagsFor("alice", "c1"); got != (tags{user: "alice"}) || l.limit(got) != 200 {
		t.Fatalf("alice's user quota: tags %+v limit %v", got, l.limit(got))
	}
	if got := l.tagsFor("bob", "c1"); got != (tags{client: "c1"}) || l.limit(got) != 100 {
		t.Fatalf("bob keeps the client quota: tags %+v limit %v", got, l.limit(got))
	}
	l.set(Entity{User: DefaultPart}, 300, true)
	if got := l.tagsFor("bob", "c1"); got != (tags{user: "bob"}) || l.limit(got) != 300 {
		t.Fatalf("default user beats a client-id quota: tags %+v limit %v", got, l.limit(got))
	}
	// A user's own (user, client) entity with another client id does not apply.
	l.set(Entity{NamedPart("carol"), NamedPart("c7")}, 50, true)
	if got := l.limit(l.tagsFor("carol", "c8")); got != 300 {
		t.Fatalf("carol/c8: %v, want the default user's 300", got)
	}
	if got := l.limit(l.tagsFor("carol", "c7")); got != 50 {
		t.Fatalf("carol/c7: %v", got)
	}
}

// TestTagsSingleLevel: with one level only ever configured, the tags
// follow from it whether or not the entity has a quota, as Kafka's
// shortcut does; an unmatched entity is unlimited.
func TestTagsSingleLevel(t *testing.T) {
	l := newLimits(Unlimited)
	if l.on() {
		t.Fatal("enabled with nothing configured")
	}
	l.set(Entity{User: NamedPart("alice")}, 10, true)
	if got := l.tagsFor("bob", "x"); got != (tags{user: "bob"}) || l.limit(got) != Unlimited {
		t.Fatalf("user level only: bob's tags %+v limit %v", got, l.limit(got))
	}
	l.set(Entity{User: NamedPart("alice")}, 0, false)
	if !l.on() {
		t.Fatal("removing the quota disabled the type: Kafka keeps it enabled until restart")
	}
	l2 := newLimits(Unlimited)
	l2.set(Entity{NamedPart("alice"), NamedPart("c1")}, 10, true)
	if got := l2.tagsFor("alice", "c2"); got != (tags{"alice", "c2"}) || l2.limit(got) != Unlimited {
		t.Fatalf("user/client level only: tags %+v limit %v", got, l2.limit(got))
	}
}

// TestEntityPaths: an entity's znode path and back, with sanitized names.
func TestEntityPaths(t *testing.T) {
	for _, tc := range []struct {
		e         Entity
		typ, name string
		str       string
	}{
		{Entity{User: NamedPart("alice")}, "users", "alice", "user alice"},
		{Entity{User: DefaultPart}, "users", "<default>", "default user"},
		{Entity{Client: NamedPart("c 1")}, "clients", "c%201", "client-id c 1"},
		{Entity{Client: DefaultPart}, "clients", "<default>", "default client-id"},
		{Entity{NamedPart("CN=x,O=y"), NamedPart("c1")}, "users", "CN%3Dx%2CO%3Dy/clients/c1", "user CN=x,O=y client-id c1"},
		{Entity{DefaultPart, DefaultPart}, "users", "<default>/clients/<default>", "default user default client-id"},
	} {
		typ, name := tc.e.ConfigPath()
		if typ != tc.typ || name != tc.name {
			t.Errorf("%+v: path %s/%s, want %s/%s", tc.e, typ, name, tc.typ, tc.name)
		}
		back, err := ParseEntity(typ, name)
		if err != nil || back != tc.e {
			t.Errorf("ParseEntity(%s, %s) = %+v, %v; want %+v", typ, name, back, err, tc.e)
		}
		if s := tc.e.String(); s != tc.str {
			t.Errorf("String %q, want %q", s, tc.str)
		}
	}
	for _, bad := range [][2]string{{"topics", "t"}, {"users", "a/b"}, {"users", "a/topics/b"}, {"clients", "a/clients/b"}, {"users", ""}, {"users", "bad%zz"}} {
		if e, err := ParseEntity(bad[0], bad[1]); err == nil {
			t.Errorf("ParseEntity(%s, %s) = %+v, want an error", bad[0], bad[1], e)
		}
	}
}
