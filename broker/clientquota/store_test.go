package clientquota

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
)

func openStore(t *testing.T) meta.Store {
	t.Helper()
	s, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func getJSON(t *testing.T, s meta.Store, path string) string {
	t.Helper()
	data, _, err := s.Get(context.Background(), path)
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	return string(data)
}

func notifications(t *testing.T, s meta.Store) []string {
	t.Helper()
	ctx := context.Background()
	names, _, err := s.Children(ctx, dynconfig.ChangesPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		out = append(out, getJSON(t, s, dynconfig.ChangesPath+"/"+n))
	}
	return out
}

// TestAlterKeepsOtherKeys: a quota write leaves a user's SCRAM credential
// as it was, stores values as Kafka does (a LONG as an integer, a DOUBLE
// as Java prints it) and posts a notification with the entity path.
func TestAlterKeepsOtherKeys(t *testing.T) {
	ms := openStore(t)
	ctx := context.Background()
	scram := `{"version":1,"config":{"SCRAM-SHA-256":"salt=c2FsdA==,stored_key=a2V5,server_key=a2V5,iterations=4096"}}`
	if err := meta.CreateRecursive(ctx, ms, "/config/users/alice", []byte(scram), meta.Persistent); err != nil {
		t.Fatal(err)
	}
	st := Store{Meta: ms}
	alice := Entity{User: NamedPart("alice")}
	if err := st.Alter(ctx, alice, []Op{{Key: ProducerByteRate, Value: 1048576}, {Key: RequestPercentage, Value: 200}}, false); err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"config":{"SCRAM-SHA-256":"salt=c2FsdA==,stored_key=a2V5,server_key=a2V5,iterations=4096","producer_byte_rate":"1048576","request_percentage":"200.0"}}`
	if got := getJSON(t, ms, "/config/users/alice"); got != want {
		t.Fatalf("znode\n%s\nwant\n%s", got, want)
	}
	if err := st.Alter(ctx, alice, []Op{{Key: ProducerByteRate, Remove: true}, {Key: RequestPercentage, Remove: true}}, false); err != nil {
		t.Fatal(err)
	}
	if got := getJSON(t, ms, "/config/users/alice"); got != scram {
		t.Fatalf("after removing the quotas\n%s\nwant\n%s", got, scram)
	}
	if got, want := notifications(t, ms), []string{`{"version":2,"entity_path":"users/alice"}`, `{"version":2,"entity_path":"users/alice"}`}; !reflect.DeepEqual(got, want) {
		t.Fatalf("notifications %v, want %v", got, want)
	}
}

// TestAlterUserClientAndDefaults: a user/client-id quota creates the
// user's znode with an empty config (parseable by every reader), names are
// sanitized, and defaults use <default>.
func TestAlterUserClientAndDefaults(t *testing.T) {
	ms := openStore(t)
	ctx := context.Background()
	st := Store{Meta: ms}
	for _, e := range []Entity{
		{NamedPart("CN=bob"), NamedPart("c 1")},
		{DefaultPart, DefaultPart},
		{Client: DefaultPart},
	} {
		if err := st.Alter(ctx, e, []Op{{Key: ConsumerByteRate, Value: 2097152}}, false); err != nil {
			t.Fatalf("%v: %v", e, err)
		}
	}
	for path, want := range map[string]string{
		"/config/users/CN%3Dbob":                    `{"version":1,"config":{}}`,
		"/config/users/CN%3Dbob/clients/c%201":      `{"version":1,"config":{"consumer_byte_rate":"2097152"}}`,
		"/config/users/<default>":                   `{"version":1,"config":{}}`,
		"/config/users/<default>/clients/<default>": `{"version":1,"config":{"consumer_byte_rate":"2097152"}}`,
		"/config/clients/<default>":                 `{"version":1,"config":{"consumer_byte_rate":"2097152"}}`,
	} {
		if got := getJSON(t, ms, path); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	want := []string{
		`{"version":2,"entity_path":"users/CN%3Dbob/clients/c%201"}`,
		`{"version":2,"entity_path":"users/<default>/clients/<default>"}`,
		`{"version":2,"entity_path":"clients/<default>"}`,
	}
	if got := notifications(t, ms); !reflect.DeepEqual(got, want) {
		t.Fatalf("notifications %v, want %v", got, want)
	}
	all, err := st.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 5 || all[Entity{NamedPart("CN=bob"), NamedPart("c 1")}][ConsumerByteRate] != "2097152" {
		t.Fatalf("All: %v", all)
	}
}

// TestAlterValidation: Kafka's INVALID_REQUEST messages, nothing written
// on a refusal, and validate_only writing nothing either.
func TestAlterValidation(t *testing.T) {
	ms := openStore(t)
	ctx := context.Background()
	st := Store{Meta: ms}
	c := Entity{Client: NamedPart("c")}
	for _, tc := range []struct {
		ops  []Op
		want string
	}{
		{[]Op{{Key: "retention.ms", Value: 1}}, "Invalid configuration key retention.ms"},
		{[]Op{{Key: "controller_mutation_rate", Value: 1}}, "Invalid configuration key controller_mutation_rate"},
		{[]Op{{Key: "SCRAM-SHA-256", Remove: true}}, "Invalid configuration key SCRAM-SHA-256"},
		{[]Op{{Key: ProducerByteRate, Value: 1.5}}, "Configuration producer_byte_rate must be a LONG value"},
		{[]Op{{Key: ConsumerByteRate, Value: 1e19}}, "Configuration consumer_byte_rate must be a LONG value"},
	} {
		err := st.Alter(ctx, c, tc.ops, false)
		var ke *kafkaerr.Error
		if !errors.As(err, &ke) || ke.Code != kerr.InvalidRequest || ke.Message != tc.want {
			t.Errorf("%+v: %v, want INVALID_REQUEST %q", tc.ops, err, tc.want)
		}
	}
	if err := st.Alter(ctx, c, []Op{{Key: ProducerByteRate, Value: 9.223372036854775807e18}, {Key: ConsumerByteRate, Value: 1048576.0000001}}, true); err != nil {
		t.Fatalf("validate only: %v", err)
	}
	if ok, _, _ := ms.Exists(ctx, "/config/clients/c"); ok {
		t.Fatal("a refused or validate-only alteration wrote the znode")
	}
	if err := st.Alter(ctx, c, []Op{{Key: ProducerByteRate, Value: 9.223372036854775807e18}}, false); err != nil {
		t.Fatal(err)
	}
	if got := getJSON(t, ms, "/config/clients/c"); got != `{"version":1,"config":{"producer_byte_rate":"9223372036854775807"}}` {
		t.Fatalf("Long.MAX_VALUE stored as %s", got)
	}
}

// racingStore changes the znode under the quota writer once, as a SCRAM
// credential written through another broker would.
type racingStore struct {
	meta.Store
	raced bool
}

func (r *racingStore) Set(ctx context.Context, path string, data []byte, version int32) (meta.Stat, error) {
	if !r.raced {
		r.raced = true
		cur, _, err := r.Store.Get(ctx, path)
		if err != nil {
			return meta.Stat{}, err
		}
		other := strings.Replace(string(cur), `"config":{`, `"config":{"SCRAM-SHA-512":"x",`, 1)
		if _, err := r.Store.Set(ctx, path, []byte(other), -1); err != nil {
			return meta.Stat{}, err
		}
	}
	return r.Store.Set(ctx, path, data, version)
}

// TestAlterRetriesOnConflict: a credential written between the quota
// writer's read and write is kept.
func TestAlterRetriesOnConflict(t *testing.T) {
	ms := openStore(t)
	ctx := context.Background()
	if err := meta.CreateRecursive(ctx, ms, "/config/users/alice", []byte(`{"version":1,"config":{"producer_byte_rate":"1"}}`), meta.Persistent); err != nil {
		t.Fatal(err)
	}
	rs := &racingStore{Store: ms}
	if err := (Store{Meta: rs}).Alter(ctx, Entity{User: NamedPart("alice")}, []Op{{Key: ProducerByteRate, Value: 2}}, false); err != nil {
		t.Fatal(err)
	}
	if got, want := getJSON(t, ms, "/config/users/alice"), `{"version":1,"config":{"SCRAM-SHA-512":"x","producer_byte_rate":"2"}}`; got != want || !rs.raced {
		t.Fatalf("after a racing write: %s, want %s", got, want)
	}
}

// TestDescribeFilters: Kafka's filter semantics over a store holding
// every kind of entity (and one user with credentials only, never listed).
func TestDescribeFilters(t *testing.T) {
	ms := openStore(t)
	ctx := context.Background()
	st := Store{Meta: ms}
	ents := map[string]Entity{
		"alice":   {User: NamedPart("alice")},
		"alice/1": {NamedPart("alice"), NamedPart("c1")},
		"alice/d": {NamedPart("alice"), DefaultPart},
		"dUser":   {User: DefaultPart},
		"d/1":     {DefaultPart, NamedPart("c1")},
		"c1":      {Client: NamedPart("c1")},
		"dClient": {Client: DefaultPart},
	}
	for _, e := range ents {
		if err := st.Alter(ctx, e, []Op{{Key: ProducerByteRate, Value: 100}}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := meta.CreateRecursive(ctx, ms, "/config/users/carol", []byte(`{"version":1,"config":{"SCRAM-SHA-256":"x"}}`), meta.Persistent); err != nil {
		t.Fatal(err)
	}
	user := func(m Match, n string) Component { return Component{EntityType: EntityUser, Match: m, Name: n} }
	client := func(m Match, n string) Component { return Component{EntityType: EntityClientID, Match: m, Name: n} }
	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"everything", Filter{}, []string{"alice", "alice/1", "alice/d", "dUser", "d/1", "c1", "dClient"}},
		{"strict nothing", Filter{Strict: true}, nil},
		{"user alice", Filter{Components: []Component{user(MatchExact, "alice")}}, []string{"alice", "alice/1", "alice/d"}},
		{"user alice strict", Filter{Components: []Component{user(MatchExact, "alice")}, Strict: true}, []string{"alice"}},
		{"default user strict", Filter{Components: []Component{user(MatchDefault, "")}, Strict: true}, []string{"dUser"}},
		{"any user strict", Filter{Components: []Component{user(MatchAny, "")}, Strict: true}, []string{"alice", "dUser"}},
		{"client c1", Filter{Components: []Component{client(MatchExact, "c1")}}, []string{"alice/1", "d/1", "c1"}},
		{"any client strict", Filter{Components: []Component{client(MatchAny, "")}, Strict: true}, []string{"c1", "dClient"}},
		{"alice and any client", Filter{Components: []Component{user(MatchExact, "alice"), client(MatchAny, "")}, Strict: true}, []string{"alice/1", "alice/d"}},
		{"default user and c1", Filter{Components: []Component{user(MatchDefault, ""), client(MatchExact, "c1")}}, []string{"d/1"}},
		{"credentials only", Filter{Components: []Component{user(MatchExact, "carol")}}, nil},
		{"ip", Filter{Components: []Component{{EntityType: EntityIP, Match: MatchAny}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.Describe(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			want := map[Entity]map[string]float64{}
			for _, n := range tc.want {
				want[ents[n]] = map[string]float64{ProducerByteRate: 100}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
	for _, tc := range []struct {
		f    Filter
		code *kerr.Error
		msg  string
	}{
		{Filter{Components: []Component{user(MatchAny, ""), user(MatchAny, "")}}, kerr.InvalidRequest, "Duplicate user filter component entity type"},
		{Filter{Components: []Component{client(MatchAny, ""), client(MatchAny, "")}}, kerr.InvalidRequest, "Duplicate client filter component entity type"},
		{Filter{Components: []Component{{EntityType: ""}}}, kerr.InvalidRequest, "Unexpected empty filter component entity type"},
		{Filter{Components: []Component{{EntityType: "group"}}}, kerr.UnsupportedVersion, "Custom entity type 'group' not supported"},
		{Filter{Components: []Component{user(MatchAny, ""), {EntityType: EntityIP, Match: MatchAny}}}, kerr.InvalidRequest,
			"Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component."},
	} {
		_, err := st.Describe(ctx, tc.f)
		var ke *kafkaerr.Error
		if !errors.As(err, &ke) || ke.Code != tc.code || ke.Message != tc.msg {
			t.Errorf("%+v: %v, want %v %q", tc.f, err, tc.code, tc.msg)
		}
	}
}
