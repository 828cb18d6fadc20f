package acl

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/principal"
	"kafgo/internal/aclname"
)

// The ACL enums are Kafka's, with Kafka's wire codes.
type (
	ResourceType   = kmsg.ACLResourceType
	Operation      = kmsg.ACLOperation
	PermissionType = kmsg.ACLPermissionType
	PatternType    = kmsg.ACLResourcePatternType
)

// Resource types, operations, permissions and pattern types of Kafka 2.8.
const (
	Topic           = kmsg.ACLResourceTypeTopic
	Group           = kmsg.ACLResourceTypeGroup
	Cluster         = kmsg.ACLResourceTypeCluster
	TransactionalID = kmsg.ACLResourceTypeTransactionalId
	DelegationToken = kmsg.ACLResourceTypeDelegationToken

	OpAny             = kmsg.ACLOperationAny
	OpAll             = kmsg.ACLOperationAll
	OpRead            = kmsg.ACLOperationRead
	OpWrite           = kmsg.ACLOperationWrite
	OpCreate          = kmsg.ACLOperationCreate
	OpDelete          = kmsg.ACLOperationDelete
	OpAlter           = kmsg.ACLOperationAlter
	OpDescribe        = kmsg.ACLOperationDescribe
	OpClusterAction   = kmsg.ACLOperationClusterAction
	OpDescribeConfigs = kmsg.ACLOperationDescribeConfigs
	OpAlterConfigs    = kmsg.ACLOperationAlterConfigs
	OpIdempotentWrite = kmsg.ACLOperationIdempotentWrite

	Allow = kmsg.ACLPermissionTypeAllow
	Deny  = kmsg.ACLPermissionTypeDeny

	Literal  = kmsg.ACLResourcePatternTypeLiteral
	Prefixed = kmsg.ACLResourcePatternTypePrefixed
	Match    = kmsg.ACLResourcePatternTypeMatch
)

// Wildcards and the one name of the cluster resource.
const (
	ClusterName       = "kafka-cluster"
	WildcardResource  = "*"
	WildcardHost      = "*"
	WildcardPrincipal = "User:*"
)

// resourceTypes and operations are those of Kafka 2.8.
var (
	resourceTypes = aclname.ResourceTypes
	operations    = aclname.Operations
)

// SupportedOperations are the operations that mean something on a resource
// type (AclEntry.supportedOperations): the ones authorized-operations
// fields report on.
func SupportedOperations(rt ResourceType) []Operation { return aclname.SupportedOperations(rt) }

// ResourceTypeName is the name in ZooKeeper paths: Topic, TransactionalId.
func ResourceTypeName(rt ResourceType) string { return aclname.Pascal(rt.String()) }

// OperationName is the name in ZooKeeper data: Read, IdempotentWrite.
func OperationName(op Operation) string { return aclname.Pascal(op.String()) }

// PermissionName is the name in ZooKeeper data: Allow, Deny.
func PermissionName(p PermissionType) string { return aclname.Pascal(p.String()) }

// ParseResourceType reads a resource type name (Topic, TOPIC).
func ParseResourceType(s string) (ResourceType, bool) { return aclname.Parse(resourceTypes, s) }

// ParseOperation reads an operation name (Read, READ, IdempotentWrite).
func ParseOperation(s string) (Operation, bool) { return aclname.Parse(operations, s) }

// ParsePermission reads a permission name (Allow, ALLOW, Deny).
func ParsePermission(s string) (PermissionType, bool) { return aclname.Parse(aclname.Permissions, s) }

// Pattern is a ResourcePattern: the resource (or resource name prefix) a
// binding applies to.
type Pattern struct {
	Type        ResourceType
	Name        string
	PatternType PatternType
}

func (p Pattern) String() string {
	return fmt.Sprintf("%s:%s:%s", ResourceTypeName(p.Type), p.PatternType, p.Name)
}

// Entry is an AccessControlEntry: who may (or may not) do what, from where.
type Entry struct {
	Principal  string // "User:alice", or User:* for everyone
	Host       string // "*" or an IP address
	Operation  Operation
	Permission PermissionType
}

// Binding is an AclBinding: an entry on a resource pattern.
type Binding struct {
	Pattern Pattern
	Entry   Entry
}

// validate checks a binding before it is stored, as AclAuthorizer and
// AclBinding do: known and specific enums (no ANY, MATCH or UNKNOWN), a
// Type:Name principal, a host, and no '/' in the name (it is a znode name).
func (b Binding) validate() error {
	p, e := b.Pattern, b.Entry
	switch {
	case !slices.Contains(resourceTypes, p.Type):
		return fmt.Errorf("%w: resource type %s cannot be stored", ErrInvalid, p.Type)
	case p.PatternType != Literal && p.PatternType != Prefixed:
		return fmt.Errorf("%w: pattern type %s cannot be stored", ErrInvalid, p.PatternType)
	case !slices.Contains(operations, e.Operation):
		return fmt.Errorf("%w: operation %s cannot be stored", ErrInvalid, e.Operation)
	case e.Permission != Allow && e.Permission != Deny:
		return fmt.Errorf("%w: permission type %s cannot be stored", ErrInvalid, e.Permission)
	case e.Host == "":
		return fmt.Errorf("%w: empty host", ErrInvalid)
	case p.Name == "" || strings.Contains(p.Name, "/"):
		return fmt.Errorf("%w: ACL binding contains invalid resource name: %s", ErrInvalid, p.Name)
	}
	if _, err := principal.Parse(e.Principal); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// ErrInvalid marks a binding that cannot be stored (Kafka's "Failed to
// create ACL" INVALID_REQUEST).
var ErrInvalid = kafkaerr.Sentinel(kerr.InvalidRequest, "acl: invalid ACL binding")

// PatternFilter is a ResourcePatternFilter: Type ANY and a nil Name match
// every type and name; PatternType ANY matches either pattern type by exact
// name, MATCH every pattern that applies to the named resource (literal
// name, literal "*", or a prefix of it).
type PatternFilter struct {
	Type        ResourceType
	Name        *string
	PatternType PatternType
}

// Matches is ResourcePatternFilter.matches.
func (f PatternFilter) Matches(p Pattern) bool {
	if f.Type != kmsg.ACLResourceTypeAny && f.Type != p.Type {
		return false
	}
	if f.PatternType != kmsg.ACLResourcePatternTypeAny && f.PatternType != Match && f.PatternType != p.PatternType {
		return false
	}
	if f.Name == nil {
		return true
	}
	if f.PatternType == kmsg.ACLResourcePatternTypeAny || f.PatternType == p.PatternType {
		return *f.Name == p.Name
	}
	switch p.PatternType {
	case Literal:
		return *f.Name == p.Name || p.Name == WildcardResource
	case Prefixed:
		return strings.HasPrefix(*f.Name, p.Name)
	}
	return false
}

// exact reports whether the filter names one pattern only
// (matchesAtMostOne): then that pattern is looked up in the store even if
// this broker has not cached it yet.
func (f PatternFilter) exact() (Pattern, bool) {
	if f.Type == kmsg.ACLResourceTypeAny || f.Name == nil || (f.PatternType != Literal && f.PatternType != Prefixed) {
		return Pattern{}, false
	}
	return Pattern{Type: f.Type, Name: *f.Name, PatternType: f.PatternType}, true
}

// EntryFilter is an AccessControlEntryFilter: nil Principal or Host, and
// ANY Operation or Permission, match everything.
type EntryFilter struct {
	Principal  *string
	Host       *string
	Operation  Operation
	Permission PermissionType
}

// Matches is AccessControlEntryFilter.matches.
func (f EntryFilter) Matches(e Entry) bool {
	if f.Principal != nil && *f.Principal != e.Principal {
		return false
	}
	if f.Host != nil && *f.Host != e.Host {
		return false
	}
	if f.Operation != OpAny && f.Operation != e.Operation {
		return false
	}
	return f.Permission == kmsg.ACLPermissionTypeAny || f.Permission == e.Permission
}

// Filter is an AclBindingFilter.
type Filter struct {
	Pattern PatternFilter
	Entry   EntryFilter
}

// Unknown reports whether the filter names an UNKNOWN (or, in Kafka 2.8,
// nonexistent) type, pattern type, operation or permission: Kafka refuses
// such a filter as an invalid request.
func (f Filter) Unknown() bool {
	return !(f.Pattern.Type == kmsg.ACLResourceTypeAny || slices.Contains(resourceTypes, f.Pattern.Type)) ||
		f.Pattern.PatternType < kmsg.ACLResourcePatternTypeAny || f.Pattern.PatternType > Prefixed ||
		!(f.Entry.Operation == OpAny || slices.Contains(operations, f.Entry.Operation)) ||
		!(f.Entry.Permission == kmsg.ACLPermissionTypeAny || f.Entry.Permission == Allow || f.Entry.Permission == Deny)
}

// hostMatches compares an entry's host with the client's address: "*",
// the same text, or the same IP however written (Kafka compares with
// Java's InetAddress.getHostAddress text, which spells IPv6 in full).
func hostMatches(entryHost, client string) bool {
	if entryHost == WildcardHost || entryHost == client {
		return true
	}
	a, b := net.ParseIP(entryHost), net.ParseIP(client)
	return a != nil && b != nil && a.Equal(b)
}

// less orders patterns as Kafka's ACL cache (ResourceOrdering): by
// resource type, then pattern type, then name descending. DescribeAcls
// lists bindings in this order.
func less(a, b Pattern) bool {
	if a.Type != b.Type {
		return a.Type < b.Type
	}
	if a.PatternType != b.PatternType {
		return a.PatternType < b.PatternType
	}
	return a.Name > b.Name
}
