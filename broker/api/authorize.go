package api

import (
	"net"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// Authorization, as Kafka's KafkaApis/AuthHelper: every handler asks here
// whether the request's principal may perform an operation on a resource.
// Without an authorizer (authorizer.class.name empty) everything is
// allowed. In-process calls (Call.Conn nil: the controller talking to its
// own broker, a broker to its own controller) are the broker itself and
// are always allowed. Brokers reaching each other over the network are
// authorized like any client, as their inter-broker principal: with a
// PLAINTEXT inter-broker listener that is User:ANONYMOUS, which Kafka
// operators list in super.users (or grant ClusterAction on the cluster).

// Kafka's messages for the authorization errors (Errors.java).
var (
	errTopicAuthorization   = refuse(kerr.TopicAuthorizationFailed, "Topic authorization failed.")
	errGroupAuthorization   = refuse(kerr.GroupAuthorizationFailed, "Group authorization failed.")
	errClusterAuthorization = refuse(kerr.ClusterAuthorizationFailed, "Cluster authorization failed.")
	errTxnIDAuthorization   = refuse(kerr.TransactionalIDAuthorizationFailed, "Transactional Id authorization failed.")
)

// session is the authorizer's view of who sent the call.
func session(c *Call) acl.Session {
	host := ""
	if c.Conn.Remote != nil {
		host = c.Conn.Remote.String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	return acl.Session{Principal: c.Conn.Principal(), Host: host}
}

// authorizes reports whether calls are authorized at all: not in process,
// and an authorizer configured.
func (s *Server) authorizes(c *Call) bool { return c.Conn != nil && s.d.Authorizer != nil }

// authorize reports whether the call may perform op on the resource; a
// refusal is logged as Kafka's authorizer logger logs it.
func (s *Server) authorize(c *Call, op acl.Operation, rt acl.ResourceType, name string) bool {
	if s.authorizeQuiet(c, op, rt, name) {
		return true
	}
	ss := session(c)
	s.log.Info("authorization denied", "principal", ss.Principal.String(), "operation", acl.OperationName(op),
		"host", ss.Host, "resource", acl.Pattern{Type: rt, Name: name, PatternType: acl.Literal}.String(),
		"request", kmsg.NameForKey(c.Header.APIKey))
	return false
}

// authorizeQuiet is authorize without the log line, for filters (the
// topics of an all-topics Metadata, ListGroups) and authorized-operations
// fields, where Kafka does not log refusals either.
func (s *Server) authorizeQuiet(c *Call, op acl.Operation, rt acl.ResourceType, name string) bool {
	if !s.authorizes(c) {
		return true
	}
	return s.d.Authorizer.Authorize(session(c), op, rt, name)
}

// authorizeCluster is authorize on the cluster resource.
func (s *Server) authorizeCluster(c *Call, op acl.Operation) bool {
	return s.authorize(c, op, acl.Cluster, acl.ClusterName)
}

// clusterAction authorizes an inter-broker request: it must come from a
// broker (in process, or on the inter-broker listener) and, with an
// authorizer, from a principal with ClusterAction on the cluster
// (Kafka's CLUSTER_AUTHORIZATION_FAILED otherwise).
func (s *Server) clusterAction(c *Call) bool {
	return s.fromBroker(c) && s.authorizeCluster(c, acl.OpClusterAction)
}

// authorizedNames returns the names (each checked once) the call may
// perform op on, as Kafka's filterByAuthorized.
func (s *Server) authorizedNames(c *Call, op acl.Operation, rt acl.ResourceType, names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	checked := make(map[string]bool, len(names))
	for _, n := range names {
		if checked[n] {
			continue
		}
		checked[n] = true
		if s.authorize(c, op, rt, n) {
			out[n] = true
		}
	}
	return out
}

// namesOf lists a request's resource names.
func namesOf[T any](items []T, name func(*T) string) []string {
	out := make([]string, 0, len(items))
	for i := range items {
		out = append(out, name(&items[i]))
	}
	return out
}

// mayCreateTopic reports whether the call may create the topic: Create on
// the cluster, else Create on the topic (auto-creation by Metadata and
// Produce, and CreateTopics).
func (s *Server) mayCreateTopic(c *Call, topic string) bool {
	return s.authorizeQuiet(c, acl.OpCreate, acl.Cluster, acl.ClusterName) || s.authorize(c, acl.OpCreate, acl.Topic, topic)
}

// authorizeWriteAnyTopic is Kafka's authorizeByResourceType(WRITE, TOPIC):
// whether the call may write to at least one topic, which authorizes an
// idempotent producer without IdempotentWrite on the cluster (KIP-679).
func (s *Server) authorizeWriteAnyTopic(c *Call) bool {
	if !s.authorizes(c) || s.d.Authorizer.AuthorizeByResourceType(session(c), acl.OpWrite, acl.Topic) {
		return true
	}
	ss := session(c)
	s.log.Info("authorization denied", "principal", ss.Principal.String(), "operation", "Write",
		"host", ss.Host, "resource", "any Topic", "request", kmsg.NameForKey(c.Header.APIKey))
	return false
}

// authorizedOperations is the bit field of the resource type's operations
// the call may perform (bit n for operation code n), as the
// *_authorized_operations fields carry it; without an authorizer, every
// operation the resource type supports.
func (s *Server) authorizedOperations(c *Call, rt acl.ResourceType, name string) int32 {
	var bits int32
	for _, op := range acl.SupportedOperations(rt) {
		if s.authorizeQuiet(c, op, rt, name) {
			bits |= 1 << uint(op)
		}
	}
	return bits
}
