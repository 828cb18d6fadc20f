package znode

import (
	"bytes"
	"fmt"
	"strings"
)

// ACL znodes of Kafka 2.x's AclAuthorizer (kafka.zk.ZkAclStore,
// LiteralAclChangeStore, ExtendedAclChangeStore).
//
// Literal ACLs live at /kafka-acl/<ResourceType>/<name>, every other
// pattern type at /kafka-acl-extended/<patterntype>/<ResourceType>/<name>
// (only "prefixed" exists), with <ResourceType> in PascalCase (Topic,
// Group, Cluster, TransactionalId, DelegationToken). A change is announced
// by a persistent-sequential acl_changes_<seq> child of /kafka-acl-changes
// (literal, data "Topic:orders") or /kafka-acl-extended-changes
// (prefixed, JSON).
const (
	ACLPath                = "/kafka-acl"
	ACLChangesPath         = "/kafka-acl-changes"
	ExtendedACLPath        = "/kafka-acl-extended"
	ExtendedACLChangesPath = "/kafka-acl-extended-changes"
	ACLChangePrefix        = "acl_changes_"
)

// ACLStorePath is the parent of one pattern type's resource types:
// /kafka-acl for "literal", /kafka-acl-extended/<patternType> otherwise.
// patternType is Kafka's lower-case pattern type name.
func ACLStorePath(patternType string) string {
	if patternType == "literal" {
		return ACLPath
	}
	return ExtendedACLPath + "/" + patternType
}

// ACLResourceTypePath is the parent of one resource type's ACL znodes,
// e.g. /kafka-acl/Topic or /kafka-acl-extended/prefixed/Group.
func ACLResourceTypePath(patternType, resourceType string) string {
	return ACLStorePath(patternType) + "/" + resourceType
}

// ACLResourcePath is one resource's ACL znode, e.g. /kafka-acl/Topic/orders.
func ACLResourcePath(patternType, resourceType, name string) string {
	return ACLResourceTypePath(patternType, resourceType) + "/" + name
}

// ACLChangeSeqPath is the PersistentSequential create path of a change
// notification: literal changes go to /kafka-acl-changes, the others to
// /kafka-acl-extended-changes.
func ACLChangeSeqPath(literal bool) string {
	if literal {
		return ACLChangesPath + "/" + ACLChangePrefix
	}
	return ExtendedACLChangesPath + "/" + ACLChangePrefix
}

// ACLEntry is one entry of an ACL znode, names as Kafka writes them:
// principal "User:alice", permissionType "Allow"/"Deny", operation in
// PascalCase ("Read", "IdempotentWrite"), host "*" or an address.
type ACLEntry struct {
	Principal      string
	PermissionType string
	Operation      string
	Host           string
}

// ACLs is the data of an ACL znode (AclEntry.toJsonCompatibleMap):
//
//	{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}
type ACLs struct {
	Entries []ACLEntry
}

// Marshal encodes the znode, entries in the given order.
func (a ACLs) Marshal() ([]byte, error) {
	parts := make([][]byte, 0, len(a.Entries))
	for _, e := range a.Entries {
		var o object
		o.field("principal", e.Principal)
		o.field("permissionType", e.PermissionType)
		o.field("operation", e.Operation)
		o.field("host", e.Host)
		b, err := o.bytes()
		if err != nil {
			return nil, marshalErr("acls", err)
		}
		parts = append(parts, b)
	}
	var o object
	o.field("version", 1)
	o.raw("acls", append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']'))
	return o.bytes()
}

// Unmarshal decodes an ACL znode. Every entry needs all four fields.
func (a *ACLs) Unmarshal(data []byte) error {
	const what = "acls"
	var v struct {
		Version int `json:"version"`
		ACLs    []struct {
			Principal      *string `json:"principal"`
			PermissionType *string `json:"permissionType"`
			Operation      *string `json:"operation"`
			Host           *string `json:"host"`
		} `json:"acls"`
	}
	if err := decode(what, data, &v); err != nil {
		return err
	}
	if v.Version != 1 {
		return parseErr(what, "unsupported version %d", v.Version)
	}
	out := make([]ACLEntry, 0, len(v.ACLs))
	for i, e := range v.ACLs {
		if e.Principal == nil || e.PermissionType == nil || e.Operation == nil || e.Host == nil {
			return parseErr(what, "entry %d lacks principal, permissionType, operation or host", i)
		}
		out = append(out, ACLEntry{Principal: *e.Principal, PermissionType: *e.PermissionType, Operation: *e.Operation, Host: *e.Host})
	}
	a.Entries = out
	return nil
}

// ParseACLs decodes an ACL znode.
func ParseACLs(data []byte) (ACLs, error) {
	var a ACLs
	err := a.Unmarshal(data)
	return a, err
}

// ACLChange names the resource whose ACLs changed. ResourceType is the
// PascalCase name, PatternType Kafka's upper-case name (LITERAL, PREFIXED).
type ACLChange struct {
	ResourceType string
	Name         string
	PatternType  string
}

// Marshal encodes the notification: "Topic:orders" for a LITERAL change
// (under /kafka-acl-changes), else
//
//	{"version":1,"resourceType":"Topic","name":"orders-","patternType":"PREFIXED"}
//
// (under /kafka-acl-extended-changes).
func (c ACLChange) Marshal() ([]byte, error) {
	if c.PatternType == "LITERAL" {
		return []byte(c.ResourceType + ":" + c.Name), nil
	}
	var o object
	o.field("version", 1)
	o.field("resourceType", c.ResourceType)
	o.field("name", c.Name)
	o.field("patternType", c.PatternType)
	return o.bytes()
}

// ParseLiteralACLChange decodes a /kafka-acl-changes notification,
// "<ResourceType>:<name>", split at the first colon (a name may hold more).
func ParseLiteralACLChange(data []byte) (ACLChange, error) {
	typ, name, ok := strings.Cut(string(data), ":")
	if !ok || typ == "" {
		return ACLChange{}, parseErr("acl change", "%q is not <ResourceType>:<name>", data)
	}
	return ACLChange{ResourceType: typ, Name: name, PatternType: "LITERAL"}, nil
}

// ParseExtendedACLChange decodes a /kafka-acl-extended-changes notification.
func ParseExtendedACLChange(data []byte) (ACLChange, error) {
	const what = "extended acl change"
	var v struct {
		Version      int     `json:"version"`
		ResourceType *string `json:"resourceType"`
		Name         *string `json:"name"`
		PatternType  *string `json:"patternType"`
	}
	if err := decode(what, data, &v); err != nil {
		return ACLChange{}, err
	}
	if v.Version != 1 {
		return ACLChange{}, parseErr(what, "unsupported version %d", v.Version)
	}
	if v.ResourceType == nil || v.Name == nil || v.PatternType == nil {
		return ACLChange{}, parseErr(what, "missing resourceType, name or patternType in %s", data)
	}
	return ACLChange{ResourceType: *v.ResourceType, Name: *v.Name, PatternType: *v.PatternType}, nil
}

// String is the change as Kafka logs a resource pattern.
func (c ACLChange) String() string {
	return fmt.Sprintf("%s:%s:%s", c.ResourceType, c.PatternType, c.Name)
}
