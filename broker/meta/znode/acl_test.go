package znode

import (
	"reflect"
	"testing"
)

// TestACLGoldenBytes pins the bytes kafgo writes for ACL znodes and their
// change notifications: Kafka's AclEntry.toJsonCompatibleMap order and its
// two notification forms.
func TestACLGoldenBytes(t *testing.T) {
	cases := []struct {
		name string
		v    marshaler
		want string
	}{
		{"acls", ACLs{Entries: []ACLEntry{
			{"User:alice", "Allow", "Read", "*"},
			{"User:bob", "Deny", "IdempotentWrite", "10.0.0.1"},
		}}, `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:bob","permissionType":"Deny","operation":"IdempotentWrite","host":"10.0.0.1"}]}`},
		{"acls empty", ACLs{}, `{"version":1,"acls":[]}`},
		{"acls html characters kept", ACLs{Entries: []ACLEntry{{"User:<a&b>", "Allow", "All", "*"}}},
			`{"version":1,"acls":[{"principal":"User:<a&b>","permissionType":"Allow","operation":"All","host":"*"}]}`},
		{"literal change", ACLChange{ResourceType: "Topic", Name: "orders", PatternType: "LITERAL"}, `Topic:orders`},
		{"literal change, name with colon", ACLChange{ResourceType: "Group", Name: "a:b", PatternType: "LITERAL"}, `Group:a:b`},
		{"prefixed change", ACLChange{ResourceType: "TransactionalId", Name: "tx-", PatternType: "PREFIXED"},
			`{"version":1,"resourceType":"TransactionalId","name":"tx-","patternType":"PREFIXED"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.v.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestACLParse reads what Kafka (and hand-written tools) put in ZooKeeper.
func TestACLParse(t *testing.T) {
	a, err := ParseACLs([]byte(`{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"host":"1.2.3.4","operation":"WRITE","permissionType":"DENY","principal":"User:CN=x,O=y","extra":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []ACLEntry{{"User:alice", "Allow", "Read", "*"}, {"User:CN=x,O=y", "DENY", "WRITE", "1.2.3.4"}}
	if !reflect.DeepEqual(a.Entries, want) {
		t.Fatalf("got %+v", a.Entries)
	}
	for _, bad := range []string{``, `{"version":2,"acls":[]}`, `{"version":1,"acls":[{"principal":"User:a","operation":"Read","host":"*"}]}`, `[]`} {
		if _, err := ParseACLs([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}

	c, err := ParseLiteralACLChange([]byte("Group:a:b"))
	if err != nil || c != (ACLChange{"Group", "a:b", "LITERAL"}) {
		t.Fatalf("literal change %+v %v", c, err)
	}
	if _, err := ParseLiteralACLChange([]byte("Topic")); err == nil {
		t.Fatal("literal change without a colon accepted")
	}
	c, err = ParseExtendedACLChange([]byte(`{"version":1,"resourceType":"Topic","name":"orders-","patternType":"PREFIXED"}`))
	if err != nil || c != (ACLChange{"Topic", "orders-", "PREFIXED"}) {
		t.Fatalf("extended change %+v %v", c, err)
	}
	for _, bad := range []string{`Topic:x`, `{"version":1,"resourceType":"Topic","patternType":"PREFIXED"}`, `{"version":3,"resourceType":"Topic","name":"a","patternType":"PREFIXED"}`} {
		if _, err := ParseExtendedACLChange([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestACLPaths(t *testing.T) {
	cases := []struct{ got, want string }{
		{ACLResourcePath("literal", "Topic", "orders"), "/kafka-acl/Topic/orders"},
		{ACLResourcePath("prefixed", "Topic", "orders-"), "/kafka-acl-extended/prefixed/Topic/orders-"},
		{ACLResourceTypePath("literal", "TransactionalId"), "/kafka-acl/TransactionalId"},
		{ACLStorePath("prefixed"), "/kafka-acl-extended/prefixed"},
		{ACLChangeSeqPath(true), "/kafka-acl-changes/acl_changes_"},
		{ACLChangeSeqPath(false), "/kafka-acl-extended-changes/acl_changes_"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
