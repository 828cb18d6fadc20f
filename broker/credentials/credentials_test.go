package credentials

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/sasl"
	"kafgo/internal/scram"
)

func openStore(t *testing.T) meta.Store {
	t.Helper()
	st, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func upsert(t *testing.T, user string, m scram.Mechanism, password string, iterations int) Upsertion {
	t.Helper()
	salt := []byte(scram.RandomString())
	sp, err := m.SaltedPassword(password, salt, iterations)
	if err != nil {
		t.Fatal(err)
	}
	return Upsertion{User: user, Mechanism: m.Code, Iterations: int32(iterations), Salt: salt, SaltedPassword: sp}
}

func TestAlterAndLookup(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	// A quota already on the user's znode must survive.
	qdata, _ := dynconfig.MarshalConfig(map[string]string{"producer_byte_rate": "1024"})
	if err := meta.CreateRecursive(ctx, st, dynconfig.UserPath("alice@x"), qdata, meta.Persistent); err != nil {
		t.Fatal(err)
	}
	s := New(st, nil)
	res := s.Alter(ctx, nil, []Upsertion{upsert(t, "alice@x", scram.SHA256, "pw", 8192), upsert(t, "alice@x", scram.SHA512, "pw", 4096)})
	if len(res) != 1 || res[0].Code != 0 || res[0].User != "alice@x" {
		t.Fatalf("%+v", res)
	}
	data, _, err := st.Get(ctx, "/config/users/alice%40x")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := dynconfig.ParseConfig(data)
	if cfg["producer_byte_rate"] != "1024" || !strings.HasPrefix(cfg["SCRAM-SHA-256"], "salt=") || !strings.HasSuffix(cfg["SCRAM-SHA-256"], ",iterations=8192") {
		t.Fatalf("stored %s", data)
	}
	c, ok := s.Lookup(sasl.ScramSHA256, "alice@x")
	if !ok {
		t.Fatal("no credential after alter")
	}
	// The stored credential verifies the password it was made from.
	want, _ := scram.SHA256.NewCredential("pw", c.Salt, 8192)
	if want.String() != c.String() {
		t.Fatal("credential does not derive from the salted password")
	}
	// A change notification names the sanitized user.
	kids, _, _ := st.Children(ctx, dynconfig.ChangesPath)
	if len(kids) == 0 {
		t.Fatal("no change notification")
	}
	nd, _, _ := st.Get(ctx, dynconfig.ChangesPath+"/"+kids[len(kids)-1])
	if n, _ := dynconfig.ParseChange(nd); n != "users/alice%40x" {
		t.Fatalf("notification %s", nd)
	}
	// Another broker's cache loads it.
	other := New(st, nil)
	if err := other.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := other.Lookup(sasl.ScramSHA512, "alice@x"); !ok {
		t.Fatal("Load missed the user")
	}
	// Deleting both leaves the quota and drops the user from the cache.
	res = s.Alter(ctx, []Deletion{{"alice@x", 1}, {"alice@x", 2}}, nil)
	if len(res) != 1 || res[0].Code != 0 {
		t.Fatalf("%+v", res)
	}
	if _, ok := s.Lookup(sasl.ScramSHA256, "alice@x"); ok {
		t.Fatal("deleted credential still served")
	}
	if err := other.Refresh(ctx, "alice%40x"); err != nil {
		t.Fatal(err)
	}
	if _, ok := other.Lookup(sasl.ScramSHA512, "alice@x"); ok {
		t.Fatal("refresh kept a deleted credential")
	}
	data, _, _ = st.Get(ctx, "/config/users/alice%40x")
	if cfg, _ := dynconfig.ParseConfig(data); len(cfg) != 1 {
		t.Fatalf("after deletion %s", data)
	}
}

func TestAlterErrors(t *testing.T) {
	ctx := context.Background()
	s := New(openStore(t), nil)
	res := s.Alter(ctx, []Deletion{{"ghost", 1}, {"", 1}, {"m", 9}}, []Upsertion{
		upsert(t, "few", scram.SHA256, "pw", 4096), upsert(t, "twice", scram.SHA256, "pw", 4096), upsert(t, "twice", scram.SHA256, "pw", 4096),
		upsert(t, "ok", scram.SHA512, "pw", 4096),
	})
	res2 := s.Alter(ctx, nil, []Upsertion{{User: "few", Mechanism: 1, Iterations: 100}, {User: "many", Mechanism: 2, Iterations: 20000}})
	got := map[string]Result{}
	for _, r := range append(res, res2...) {
		got[r.User] = r
	}
	for user, want := range map[string]struct {
		code *kerr.Error
		msg  string
	}{
		"":      {kerr.UnacceptableCredential, "Username must not be empty"},
		"m":     {kerr.UnsupportedSaslMechanism, "Unknown SCRAM mechanism"},
		"ghost": {kerr.ResourceNotFound, "Attempt to delete a user credential that does not exist"},
		"twice": {kerr.DuplicateResource, "A user credential cannot be altered twice in the same request"},
		"few":   {kerr.UnacceptableCredential, "Too few iterations"},
		"many":  {kerr.UnacceptableCredential, "Too many iterations"},
	} {
		r, ok := got[user]
		if !ok || r.Code != want.code.Code || r.Message == nil || *r.Message != want.msg {
			t.Errorf("%q: %+v (message %v), want %s %q", user, r, r.Message, want.code.Message, want.msg)
		}
	}
	if r := got["ok"]; r.Code != 0 {
		t.Errorf("ok: %+v", r)
	}
}

func TestDescribe(t *testing.T) {
	ctx := context.Background()
	s := New(openStore(t), nil)
	s.Alter(ctx, nil, []Upsertion{upsert(t, "bob", scram.SHA512, "pw", 4096), upsert(t, "amy", scram.SHA256, "pw", 8192), upsert(t, "amy", scram.SHA512, "pw", 4096)})
	all, err := s.Describe(ctx, nil)
	if err != nil || len(all) != 2 || all[0].User != "amy" || len(all[0].Infos) != 2 || all[0].Infos[0] != (CredentialInfo{1, 8192}) || all[1].User != "bob" {
		t.Fatalf("%+v %v", all, err)
	}
	named, err := s.Describe(ctx, []string{"bob", "nobody", "bob2", "bob2"})
	if err != nil || len(named) != 3 {
		t.Fatalf("%+v %v", named, err)
	}
	if named[0].Code != 0 || named[1].Code != kerr.ResourceNotFound.Code || *named[1].Message != "Attempt to describe a user credential that does not exist: nobody" || named[2].Code != kerr.DuplicateResource.Code {
		t.Fatalf("%+v", named)
	}
}

// Kafka's own kafka-configs --zookeeper leaves /config/users/<u> without
// data when it sets only a quota of one of the user's client ids. Such a
// user has no credentials; loading must not fail (a broker that failed here
// would not start), and a credential can then be added to it.
func TestUserZnodeWithoutData(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	qdata, _ := dynconfig.MarshalConfig(map[string]string{"producer_byte_rate": "1024"})
	if err := meta.CreateRecursive(ctx, st, "/config/users/bob/clients/c1", qdata, meta.Persistent); err != nil {
		t.Fatal(err)
	}
	if data, _, err := st.Get(ctx, dynconfig.UserPath("bob")); err != nil || len(data) != 0 {
		t.Fatalf("parent %q, %v: want an empty znode", data, err)
	}
	s := New(st, nil)
	if err := s.Load(ctx); err != nil {
		t.Fatalf("load with an empty user znode: %v", err)
	}
	if _, ok := s.Lookup(sasl.ScramSHA256, "bob"); ok {
		t.Fatal("credential from an empty znode")
	}
	res := s.Alter(ctx, nil, []Upsertion{upsert(t, "bob", scram.SHA256, "pw", 4096)})
	if len(res) != 1 || res[0].Code != 0 {
		t.Fatalf("alter: %+v", res)
	}
}
