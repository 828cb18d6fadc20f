package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// The transaction and client-quota APIs check Kafka 2.8's ACLs: Write on
// the transactional id (then Write/Read on topics, Read on the group),
// Describe on the id for describe and list, DescribeConfigs/AlterConfigs on
// the cluster for quotas, Describe/Alter on the cluster for SCRAM users. A refused request changes nothing.
func TestAuthorizedTransactionsAndQuotas(t *testing.T) {
	b := authzBroker(t, nil)
	createTopicsAs(t, b, superUser, "t1", "t2")
	grant(t, b,
		allowACL(alice, acl.TransactionalID, "tx", acl.Literal, acl.OpWrite),
		allowACL(alice, acl.Topic, "t1", acl.Literal, acl.OpWrite),
		allowACL(alice, acl.Topic, "t1", acl.Literal, acl.OpRead),
		allowACL(alice, acl.Group, "g1", acl.Literal, acl.OpRead),
	)

	addParts := func(who, id string) map[string]error {
		req := kmsg.NewPtrAddPartitionsToTxnRequest()
		req.Version, req.TransactionalID, req.ProducerID, req.ProducerEpoch = 3, id, 1, 0
		for _, n := range []string{"t1", "t2"} {
			rt := kmsg.NewAddPartitionsToTxnRequestTopic()
			rt.Topic, rt.Partitions = n, []int32{0}
			req.Topics = append(req.Topics, rt)
		}
		p := alice
		if who == "bob" {
			p = bob
		}
		out := map[string]error{}
		for _, rt := range serveAs(t, b, p, req).(*kmsg.AddPartitionsToTxnResponse).Topics {
			out[rt.Topic] = kerr.ErrorForCode(rt.Partitions[0].ErrorCode)
		}
		return out
	}
	got := addParts("alice", "tx")
	wantErr(t, "alice adds t1", got["t1"], kerr.OperationNotAttempted)
	wantErr(t, "alice adds t2", got["t2"], kerr.TopicAuthorizationFailed)
	got = addParts("alice", "other")
	wantErr(t, "alice adds t1 to another id", got["t1"], kerr.TransactionalIDAuthorizationFailed)
	got = addParts("bob", "tx")
	wantErr(t, "bob adds t1", got["t1"], kerr.TransactionalIDAuthorizationFailed)

	addOffsets := func(id, group string) error {
		req := kmsg.NewPtrAddOffsetsToTxnRequest()
		req.Version, req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = 3, id, group, 1, 0
		return kerr.ErrorForCode(serveAs(t, b, alice, req).(*kmsg.AddOffsetsToTxnResponse).ErrorCode)
	}
	wantErr(t, "add offsets of g2", addOffsets("tx", "g2"), kerr.GroupAuthorizationFailed)
	wantErr(t, "add offsets to another id", addOffsets("other", "g1"), kerr.TransactionalIDAuthorizationFailed)

	end := kmsg.NewPtrEndTxnRequest()
	end.Version, end.TransactionalID, end.ProducerID, end.ProducerEpoch = 3, "tx", 1, 0
	wantErr(t, "bob ends tx", kerr.ErrorForCode(serveAs(t, b, bob, end).(*kmsg.EndTxnResponse).ErrorCode), kerr.TransactionalIDAuthorizationFailed)

	txnCommit := func(group string) map[string]error {
		req := kmsg.NewPtrTxnOffsetCommitRequest()
		req.Version, req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch, req.Generation = 3, "tx", group, 1, 0, -1
		for _, n := range []string{"t1", "t2"} {
			rt := kmsg.NewTxnOffsetCommitRequestTopic()
			rt.Topic = n
			rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			rp.Partition, rp.Offset = 0, 1
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		out := map[string]error{}
		for _, rt := range serveAs(t, b, alice, req).(*kmsg.TxnOffsetCommitResponse).Topics {
			out[rt.Topic] = kerr.ErrorForCode(rt.Partitions[0].ErrorCode)
		}
		return out
	}
	got = txnCommit("g2")
	wantErr(t, "txn commit to g2", got["t1"], kerr.GroupAuthorizationFailed)
	got = txnCommit("g1")
	wantErr(t, "txn commit of t2", got["t2"], kerr.TopicAuthorizationFailed)

	desc := kmsg.NewPtrDescribeTransactionsRequest()
	desc.TransactionalIDs = []string{"tx"}
	dr := serveAs(t, b, bob, desc).(*kmsg.DescribeTransactionsResponse)
	if len(dr.TransactionStates) != 1 || dr.TransactionStates[0].ErrorCode != kerr.TransactionalIDAuthorizationFailed.Code {
		t.Errorf("bob describes tx: %+v", dr.TransactionStates)
	}

	ds := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	wantErr(t, "alice describes SCRAM users", kerr.ErrorForCode(serveAs(t, b, alice, ds).(*kmsg.DescribeUserSCRAMCredentialsResponse).ErrorCode), kerr.ClusterAuthorizationFailed)
	as := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	up := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
	up.Name, up.Mechanism, up.Iterations, up.Salt, up.SaltedPassword = "mallory", 1, 4096, []byte("salt"), make([]byte, 32)
	as.Upsertions = append(as.Upsertions, up)
	asr := serveAs(t, b, alice, as).(*kmsg.AlterUserSCRAMCredentialsResponse)
	if len(asr.Results) != 1 || asr.Results[0].ErrorCode != kerr.ClusterAuthorizationFailed.Code {
		t.Errorf("alice alters SCRAM users: %+v", asr.Results)
	}

	dq := kmsg.NewPtrDescribeClientQuotasRequest()
	wantErr(t, "alice describes quotas", kerr.ErrorForCode(serveAs(t, b, alice, dq).(*kmsg.DescribeClientQuotasResponse).ErrorCode), kerr.ClusterAuthorizationFailed)
	wantErr(t, "admin describes quotas", kerr.ErrorForCode(serveAs(t, b, superUser, dq).(*kmsg.DescribeClientQuotasResponse).ErrorCode), nil)
	aq := kmsg.NewPtrAlterClientQuotasRequest()
	entry := kmsg.NewAlterClientQuotasRequestEntry()
	ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
	ent.Type, ent.Name = "client-id", kmsg.StringPtr("c1")
	op := kmsg.NewAlterClientQuotasRequestEntryOp()
	op.Key, op.Value = "producer_byte_rate", 1024
	entry.Entity, entry.Ops = append(entry.Entity, ent), append(entry.Ops, op)
	aq.Entries = append(aq.Entries, entry)
	ar := serveAs(t, b, alice, aq).(*kmsg.AlterClientQuotasResponse)
	wantErr(t, "alice alters quotas", kerr.ErrorForCode(ar.Entries[0].ErrorCode), kerr.ClusterAuthorizationFailed)
	dq.Components = nil
	if n := len(serveAs(t, b, superUser, dq).(*kmsg.DescribeClientQuotasResponse).Entries); n != 0 {
		t.Errorf("a refused alteration left %d quota entries", n)
	}
}
