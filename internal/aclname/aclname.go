// Package aclname is Kafka 2.8's ACL vocabulary shared by the broker's
// authorizer (broker/acl) and the kafgo acls tool (acls): which resource
// types and operations exist, which operations each resource type
// supports, and the names Kafka writes and reads them by (SecurityUtils):
// upper-case enum names (TRANSACTIONAL_ID, IDEMPOTENT_WRITE) on the wire
// and in tool output, PascalCase (TransactionalId, IdempotentWrite) in
// ZooKeeper and in tool input. The codes are kmsg's ACL enums.
package aclname

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ResourceTypes are Kafka 2.8's resource types (USER came in 3.x).
var ResourceTypes = []kmsg.ACLResourceType{
	kmsg.ACLResourceTypeTopic, kmsg.ACLResourceTypeGroup, kmsg.ACLResourceTypeCluster,
	kmsg.ACLResourceTypeTransactionalId, kmsg.ACLResourceTypeDelegationToken,
}

// Operations are the operations a 2.8 ACL may name (AclEntry.AclOperations).
var Operations = []kmsg.ACLOperation{
	kmsg.ACLOperationAll, kmsg.ACLOperationRead, kmsg.ACLOperationWrite, kmsg.ACLOperationCreate,
	kmsg.ACLOperationDelete, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribe,
	kmsg.ACLOperationClusterAction, kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs,
	kmsg.ACLOperationIdempotentWrite,
}

// Permissions are ALLOW and DENY.
var Permissions = []kmsg.ACLPermissionType{kmsg.ACLPermissionTypeAllow, kmsg.ACLPermissionTypeDeny}

// SupportedOperations are the operations that mean something on a
// resource type (AclEntry.supportedOperations), in Kafka's order; ALL is
// accepted on every type besides.
func SupportedOperations(rt kmsg.ACLResourceType) []kmsg.ACLOperation {
	switch rt {
	case kmsg.ACLResourceTypeTopic:
		return []kmsg.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationWrite, kmsg.ACLOperationCreate, kmsg.ACLOperationDescribe,
			kmsg.ACLOperationDelete, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs}
	case kmsg.ACLResourceTypeGroup:
		return []kmsg.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationDescribe, kmsg.ACLOperationDelete}
	case kmsg.ACLResourceTypeCluster:
		return []kmsg.ACLOperation{kmsg.ACLOperationCreate, kmsg.ACLOperationClusterAction, kmsg.ACLOperationDescribeConfigs,
			kmsg.ACLOperationAlterConfigs, kmsg.ACLOperationIdempotentWrite, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribe}
	case kmsg.ACLResourceTypeTransactionalId:
		return []kmsg.ACLOperation{kmsg.ACLOperationDescribe, kmsg.ACLOperationWrite}
	case kmsg.ACLResourceTypeDelegationToken:
		return []kmsg.ACLOperation{kmsg.ACLOperationDescribe}
	}
	return nil
}

// Pascal is Kafka's PascalCase of an upper-snake enum name:
// TRANSACTIONAL_ID → TransactionalId.
func Pascal(upper string) string {
	var b strings.Builder
	for _, w := range strings.Split(upper, "_") {
		if w == "" {
			continue
		}
		b.WriteString(w[:1])
		b.WriteString(strings.ToLower(w[1:]))
	}
	return b.String()
}

// Parse finds the value named s among values as SecurityUtils.valueFromMap
// does: the PascalCase name or the enum name exactly, else s upper-cased
// as the enum name (so "read" works, "clusteraction" does not).
func Parse[T interface {
	~int8
	String() string
}](values []T, s string) (T, bool) {
	for _, v := range values {
		if s == Pascal(v.String()) || s == v.String() || strings.ToUpper(s) == v.String() {
			return v, true
		}
	}
	return 0, false
}
