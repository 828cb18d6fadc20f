package aclname

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestNames(t *testing.T) {
	if got := Pascal(kmsg.ACLResourceTypeTransactionalId.String()); got != "TransactionalId" {
		t.Errorf("Pascal = %q", got)
	}
	for in, want := range map[string]kmsg.ACLOperation{"Read": kmsg.ACLOperationRead, "READ": kmsg.ACLOperationRead, "read": kmsg.ACLOperationRead,
		"IdempotentWrite": kmsg.ACLOperationIdempotentWrite, "IDEMPOTENT_WRITE": kmsg.ACLOperationIdempotentWrite,
		"idempotent_write": kmsg.ACLOperationIdempotentWrite, "ClusterAction": kmsg.ACLOperationClusterAction,
		"All": kmsg.ACLOperationAll, "DescribeConfigs": kmsg.ACLOperationDescribeConfigs} {
		if got, ok := Parse(Operations, in); !ok || got != want {
			t.Errorf("Parse(%q) = %v %v", in, got, ok)
		}
	}
	for _, bad := range []string{"clusteraction", "Any", "CreateTokens", "", "Describe Configs"} {
		if _, ok := Parse(Operations, bad); ok {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if rt, ok := Parse(ResourceTypes, "TRANSACTIONAL_ID"); !ok || rt != kmsg.ACLResourceTypeTransactionalId {
		t.Errorf("Parse(TRANSACTIONAL_ID) = %v %v", rt, ok)
	}
	if _, ok := Parse(ResourceTypes, "User"); ok {
		t.Error("USER resources are Kafka 3.x")
	}
	if got := len(SupportedOperations(kmsg.ACLResourceTypeCluster)); got != 7 {
		t.Errorf("cluster supports %d operations", got)
	}
}
