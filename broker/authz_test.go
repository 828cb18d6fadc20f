package broker

import (
	"context"
	"net"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/principal"
	"kafgo/broker/record"
	"kafgo/broker/wire"
	"kafgo/internal/testing/testwait"
)

// These tests send requests through the broker's API dispatcher as they
// arrive from the network, on connections whose principal is set as the
// transport (TLS, SASL) sets it, so every handler's authorization is
// exercised with real principals before the transport exists.

var (
	superUser = principal.User("admin") // in super.users
	alice     = principal.User("alice")
	bob       = principal.User("bob")
)

// authzBroker is a broker with the ACL authorizer on and User:admin as its
// super user.
func authzBroker(t *testing.T, extra map[string]string) *Broker {
	t.Helper()
	cfg := map[string]string{
		"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
		"super.users":           "User:admin",
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, _ := startTestBroker(t, testConfig(t, t.TempDir(), cfg))
	return b
}

// serveFrom sends req as p connected from host and decodes the answer;
// nil when the broker sent none (acks=0) or closed the connection.
func serveFrom(t *testing.T, b *Broker, p principal.Principal, host string, req kmsg.Request) kmsg.Response {
	t.Helper()
	conn := &wire.ConnInfo{ID: 1, Listener: "PLAINTEXT", Remote: &net.TCPAddr{IP: net.ParseIP(host), Port: 40000}}
	conn.SetPrincipal(p)
	hdr := wire.RequestHeader{APIKey: req.Key(), APIVersion: req.GetVersion(), ClientID: kmsg.StringPtr("authz-test"), Flexible: req.IsFlexible()}
	wr := b.api.Serve(&wire.Request{Header: hdr, Body: req.AppendTo(nil), Conn: conn, Received: time.Now()})()
	if wr == nil || wr.None || (wr.Close && len(wr.Body) == 0 && len(wr.Parts) == 0) {
		return nil
	}
	body := append([]byte(nil), wr.Body...)
	for _, p := range wr.Parts {
		if p.File == nil {
			body = append(body, p.Bytes...)
			continue
		}
		buf := make([]byte, p.Length)
		if _, err := p.File.ReadAt(buf, p.Offset); err != nil {
			t.Fatal(err)
		}
		body = append(body, buf...)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(body); err != nil {
		t.Fatalf("decoding key %d response: %v", req.Key(), err)
	}
	return resp
}

func serveAs(t *testing.T, b *Broker, p principal.Principal, req kmsg.Request) kmsg.Response {
	t.Helper()
	return serveFrom(t, b, p, "127.0.0.1", req)
}

// grant creates ACLs as the super user.
func grant(t *testing.T, b *Broker, creations ...kmsg.CreateACLsRequestCreation) {
	t.Helper()
	req := kmsg.NewPtrCreateACLsRequest()
	req.Version = 2
	req.Creations = creations
	resp := serveAs(t, b, superUser, req).(*kmsg.CreateACLsResponse)
	for i, r := range resp.Results {
		if r.ErrorCode != 0 {
			t.Fatalf("creating ACL %d: %v %v", i, kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
		}
	}
}

func allowACL(who principal.Principal, rt acl.ResourceType, name string, pt acl.PatternType, op acl.Operation) kmsg.CreateACLsRequestCreation {
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName, c.ResourcePatternType = rt, name, pt
	c.Principal, c.Host, c.Operation, c.PermissionType = who.String(), "*", op, acl.Allow
	return c
}

func createTopicsAs(t *testing.T, b *Broker, p principal.Principal, names ...string) *kmsg.CreateTopicsResponse {
	t.Helper()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Version = 5
	req.TimeoutMillis = 20000
	for _, n := range names {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = n, 1, 1
		req.Topics = append(req.Topics, rt)
	}
	return serveAs(t, b, p, req).(*kmsg.CreateTopicsResponse)
}

func batch(t *testing.T, value string) []byte {
	t.Helper()
	bb := record.NewBuilder(0, record.CodecNone)
	bb.Append(time.Now().UnixMilli(), nil, []byte(value), nil)
	raw, err := bb.Build()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func produceReq(t *testing.T, acks int16, topics ...string) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = 8, acks, 10000
	for _, n := range topics {
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = n
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Records = batch(t, "v-"+n)
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	return req
}

// produceCodes produces one batch to each topic and returns each topic's
// error.
func produceCodes(t *testing.T, b *Broker, p principal.Principal, topics ...string) map[string]error {
	t.Helper()
	resp := serveAs(t, b, p, produceReq(t, 1, topics...)).(*kmsg.ProduceResponse)
	out := map[string]error{}
	for _, rt := range resp.Topics {
		out[rt.Topic] = kerr.ErrorForCode(rt.Partitions[0].ErrorCode)
	}
	return out
}

func fetchCodes(t *testing.T, b *Broker, p principal.Principal, replicaID int32, topics ...string) map[string]error {
	t.Helper()
	req := kmsg.NewPtrFetchRequest()
	req.Version, req.ReplicaID, req.MaxWaitMillis, req.MaxBytes = 11, replicaID, 0, 1<<20
	for _, n := range topics {
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = n
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.PartitionMaxBytes = 1 << 20
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	resp := serveAs(t, b, p, req).(*kmsg.FetchResponse)
	out := map[string]error{}
	for _, rt := range resp.Topics {
		out[rt.Topic] = kerr.ErrorForCode(rt.Partitions[0].ErrorCode)
	}
	if len(out) != len(topics) {
		t.Fatalf("fetch answered %d topics, asked %d", len(out), len(topics))
	}
	return out
}

func metadataAs(t *testing.T, b *Broker, p principal.Principal, topics []string, autoCreate bool) *kmsg.MetadataResponse {
	t.Helper()
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 10
	req.AllowAutoTopicCreation = autoCreate
	req.IncludeClusterAuthorizedOperations, req.IncludeTopicAuthorizedOperations = true, true
	if topics != nil {
		req.Topics = []kmsg.MetadataRequestTopic{}
		for _, n := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(n)
			req.Topics = append(req.Topics, rt)
		}
	}
	return serveAs(t, b, p, req).(*kmsg.MetadataResponse)
}

func topicNames(m *kmsg.MetadataResponse) []string {
	var out []string
	for _, t := range m.Topics {
		out = append(out, *t.Topic)
	}
	sort.Strings(out)
	return out
}

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// TestAuthorizedDataPath: a principal with only Write on one topic (and
// Read on a prefix) produces there and nowhere else, reads only where it
// may, sees only its topics in Metadata, and learns nothing about the
// others, existing or not.
func TestAuthorizedDataPath(t *testing.T) {
	b := authzBroker(t, nil)
	if resp := createTopicsAs(t, b, superUser, "t1", "t2", "orders-eu"); resp.Topics[0].ErrorCode != 0 || resp.Topics[2].ErrorCode != 0 {
		t.Fatalf("admin create: %+v", resp.Topics)
	}
	grant(t, b,
		allowACL(alice, acl.Topic, "t1", acl.Literal, acl.OpWrite),
		allowACL(alice, acl.Topic, "orders-", acl.Prefixed, acl.OpRead),
	)
	for n, err := range produceCodes(t, b, superUser, "t1", "t2", "orders-eu") {
		if err != nil {
			t.Fatalf("admin produce to %s: %v", n, err)
		}
	}

	got := produceCodes(t, b, alice, "t1", "t2", "orders-eu", "missing")
	wantErr(t, "alice produce t1", got["t1"], nil)
	wantErr(t, "alice produce t2", got["t2"], kerr.TopicAuthorizationFailed)
	wantErr(t, "alice produce orders-eu (Read only)", got["orders-eu"], kerr.TopicAuthorizationFailed)
	wantErr(t, "alice produce missing", got["missing"], kerr.TopicAuthorizationFailed)
	for n, err := range produceCodes(t, b, bob, "t1") {
		wantErr(t, "bob produce "+n, err, kerr.TopicAuthorizationFailed)
	}
	// acks=0 refused: no answer, the connection is closed.
	if resp := serveAs(t, b, bob, produceReq(t, 0, "t1")); resp != nil {
		t.Errorf("acks=0 produce answered %+v", resp)
	}

	fetched := fetchCodes(t, b, alice, -1, "t1", "orders-eu", "t2")
	wantErr(t, "alice fetch t1 (Write only)", fetched["t1"], kerr.TopicAuthorizationFailed)
	wantErr(t, "alice fetch orders-eu", fetched["orders-eu"], nil)
	wantErr(t, "alice fetch t2", fetched["t2"], kerr.TopicAuthorizationFailed)

	// CVE-2018-1288: a replica id needs ClusterAction on the cluster.
	for n, err := range fetchCodes(t, b, alice, 1, "orders-eu", "t1") {
		wantErr(t, "alice replica fetch "+n, err, kerr.TopicAuthorizationFailed)
	}
	for n, err := range fetchCodes(t, b, superUser, 1, "t1") {
		// Past authorization: the replica layer answers (broker 1 is the
		// leader itself, so it is no follower of t1).
		if err == kerr.TopicAuthorizationFailed {
			t.Errorf("admin replica fetch %s: %v", n, err)
		}
	}

	// Metadata: the full list has only what alice may describe.
	if got := topicNames(metadataAs(t, b, alice, nil, false)); len(got) != 2 || got[0] != "orders-eu" || got[1] != "t1" {
		t.Errorf("alice sees %v", got)
	}
	if got := metadataAs(t, b, bob, nil, false); len(got.Topics) != 0 || len(got.Brokers) != 1 {
		t.Errorf("bob sees %d topics, %d brokers", len(got.Topics), len(got.Brokers))
	}
	m := metadataAs(t, b, alice, []string{"t2", "nonexistent", "t1"}, true)
	for _, mt := range m.Topics {
		switch *mt.Topic {
		case "t2", "nonexistent":
			// Existing or not, the same answer: nothing leaks.
			if mt.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(mt.Partitions) != 0 || mt.TopicID != ([16]byte{}) || mt.IsInternal {
				t.Errorf("unauthorized %s: %+v", *mt.Topic, mt)
			}
			if mt.AuthorizedOperations != -2147483648 {
				t.Errorf("unauthorized %s has authorized operations %d", *mt.Topic, mt.AuthorizedOperations)
			}
		case "t1":
			if mt.ErrorCode != 0 || len(mt.Partitions) != 1 {
				t.Errorf("t1: %+v", mt)
			}
			if want := int32(1<<acl.OpWrite | 1<<acl.OpDescribe); mt.AuthorizedOperations != want {
				t.Errorf("t1 authorized operations %b, want %b", mt.AuthorizedOperations, want)
			}
		}
	}
	if m.AuthorizedOperations != 0 {
		t.Errorf("alice's cluster authorized operations %b, want 0", m.AuthorizedOperations)
	}
	if got := metadataAs(t, b, superUser, []string{}, false).AuthorizedOperations; got != 1<<5|1<<9|1<<10|1<<11|1<<12|1<<7|1<<8 {
		t.Errorf("admin's cluster authorized operations %b", got)
	}
	if _, ok := b.cache.View().Topic("nonexistent"); ok || topicExistsInStore(t, b, "nonexistent") {
		t.Error("a Metadata request without Create auto-created the topic")
	}
	if topicExistsInStore(t, b, "missing") {
		t.Error("a refused produce auto-created its topic")
	}

	lo := kmsg.NewPtrListOffsetsRequest()
	lo.Version, lo.ReplicaID = 5, -1
	for _, n := range []string{"t1", "t2"} {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = n
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Timestamp = -1
		rt.Partitions = append(rt.Partitions, rp)
		lo.Topics = append(lo.Topics, rt)
	}
	los := serveAs(t, b, alice, lo).(*kmsg.ListOffsetsResponse)
	wantErr(t, "list offsets t1 (Describe implied by Write)", kerr.ErrorForCode(los.Topics[0].Partitions[0].ErrorCode), nil)
	wantErr(t, "list offsets t2", kerr.ErrorForCode(los.Topics[1].Partitions[0].ErrorCode), kerr.TopicAuthorizationFailed)
	if p := los.Topics[1].Partitions[0]; p.Offset != -1 || p.Timestamp != -1 {
		t.Errorf("unauthorized list offsets leaked %+v", p)
	}

	ofle := kmsg.NewPtrOffsetForLeaderEpochRequest()
	ofle.Version, ofle.ReplicaID = 3, -1
	rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
	rt.Topic = "t2"
	rt.Partitions = []kmsg.OffsetForLeaderEpochRequestTopicPartition{kmsg.NewOffsetForLeaderEpochRequestTopicPartition()}
	ofle.Topics = append(ofle.Topics, rt)
	wantErr(t, "offset for leader epoch t2", kerr.ErrorForCode(serveAs(t, b, alice, ofle).(*kmsg.OffsetForLeaderEpochResponse).Topics[0].Partitions[0].ErrorCode), kerr.TopicAuthorizationFailed)

	// Hosts: an ACL for another address does not apply.
	grant(t, b, func() kmsg.CreateACLsRequestCreation {
		c := allowACL(bob, acl.Topic, "t2", acl.Literal, acl.OpWrite)
		c.Host = "10.9.9.9"
		return c
	}())
	wantErr(t, "bob produce t2 from 127.0.0.1", produceCodes(t, b, bob, "t2")["t2"], kerr.TopicAuthorizationFailed)
	resp := serveFrom(t, b, bob, "10.9.9.9", produceReq(t, 1, "t2")).(*kmsg.ProduceResponse)
	wantErr(t, "bob produce t2 from 10.9.9.9", kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode), nil)

	// In-process calls are the broker itself.
	local, err := b.api.Local(testCtx(t), kmsg.NewPtrMetadataRequest())
	if err != nil || len(local.(*kmsg.MetadataResponse).Topics) < 3 {
		t.Errorf("in-process metadata: %v %v", local, err)
	}
}

func topicExistsInStore(t *testing.T, b *Broker, name string) bool {
	t.Helper()
	ok, err := b.admin.TopicExists(testCtx(t), name)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestAuthorizedAdmin: admin APIs refuse a principal without the ACLs and
// change nothing; Create on a topic prefix lets it create matching topics.
func TestAuthorizedAdmin(t *testing.T) {
	b := authzBroker(t, nil)
	createTopicsAs(t, b, superUser, "t1")
	grant(t, b,
		allowACL(alice, acl.Topic, "a-", acl.Prefixed, acl.OpCreate),
		allowACL(alice, acl.Topic, "t1", acl.Literal, acl.OpRead),
	)

	ct := createTopicsAs(t, b, alice, "a-1", "b-1")
	wantErr(t, "create a-1", kerr.ErrorForCode(ct.Topics[0].ErrorCode), nil)
	wantErr(t, "create a-1 configs (no DescribeConfigs)", kerr.ErrorForCode(ct.Topics[0].ConfigErrorCode), kerr.TopicAuthorizationFailed)
	if len(ct.Topics[0].Configs) != 0 {
		t.Errorf("configs returned without DescribeConfigs: %d", len(ct.Topics[0].Configs))
	}
	wantErr(t, "create b-1", kerr.ErrorForCode(ct.Topics[1].ErrorCode), kerr.TopicAuthorizationFailed)
	if topicExistsInStore(t, b, "b-1") {
		t.Error("b-1 created")
	}

	dt := kmsg.NewPtrDeleteTopicsRequest()
	dt.Version, dt.TopicNames, dt.TimeoutMillis = 3, []string{"t1"}, 5000
	wantErr(t, "delete t1", kerr.ErrorForCode(serveAs(t, b, alice, dt).(*kmsg.DeleteTopicsResponse).Topics[0].ErrorCode), kerr.TopicAuthorizationFailed)
	id := b.cacheTopicID(t, "t1")
	dt6 := kmsg.NewPtrDeleteTopicsRequest()
	dt6.Version, dt6.TimeoutMillis = 6, 5000
	dtt := kmsg.NewDeleteTopicsRequestTopic()
	dtt.TopicID = id
	dt6.Topics = append(dt6.Topics, dtt)
	grant(t, b, allowACL(bob, acl.Topic, "zzz", acl.Literal, acl.OpRead))
	byID := serveAs(t, b, bob, dt6).(*kmsg.DeleteTopicsResponse).Topics[0]
	if byID.ErrorCode != kerr.UnknownTopicID.Code || byID.Topic != nil {
		t.Errorf("delete by id without Describe: %v name %v", kerr.ErrorForCode(byID.ErrorCode), byID.Topic)
	}
	if !topicExistsInStore(t, b, "t1") {
		t.Fatal("t1 deleted")
	}

	cp := kmsg.NewPtrCreatePartitionsRequest()
	cp.Version, cp.TimeoutMillis = 2, 5000
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = "t1", 3
	cp.Topics = append(cp.Topics, cpt)
	cpr := serveAs(t, b, alice, cp).(*kmsg.CreatePartitionsResponse).Topics[0]
	if cpr.ErrorCode != kerr.TopicAuthorizationFailed.Code || cpr.ErrorMessage == nil || *cpr.ErrorMessage != "The topic authorization is failed." {
		t.Errorf("create partitions: %v %v", kerr.ErrorForCode(cpr.ErrorCode), cpr.ErrorMessage)
	}

	dr := kmsg.NewPtrDeleteRecordsRequest()
	dr.Version, dr.TimeoutMillis = 1, 5000
	drt := kmsg.NewDeleteRecordsRequestTopic()
	drt.Topic = "t1"
	drp := kmsg.NewDeleteRecordsRequestTopicPartition()
	drp.Offset = 0
	drt.Partitions = append(drt.Partitions, drp)
	dr.Topics = append(dr.Topics, drt)
	wantErr(t, "delete records", kerr.ErrorForCode(serveAs(t, b, alice, dr).(*kmsg.DeleteRecordsResponse).Topics[0].Partitions[0].ErrorCode), kerr.TopicAuthorizationFailed)

	dc := kmsg.NewPtrDescribeConfigsRequest()
	dc.Version = 3
	for _, r := range []struct {
		typ  kmsg.ConfigResourceType
		name string
	}{{kmsg.ConfigResourceTypeTopic, "t1"}, {kmsg.ConfigResourceTypeBroker, "1"}} {
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType, rr.ResourceName = r.typ, r.name
		dc.Resources = append(dc.Resources, rr)
	}
	dcr := serveAs(t, b, alice, dc).(*kmsg.DescribeConfigsResponse)
	wantErr(t, "describe topic configs", kerr.ErrorForCode(dcr.Resources[0].ErrorCode), kerr.TopicAuthorizationFailed)
	wantErr(t, "describe broker configs", kerr.ErrorForCode(dcr.Resources[1].ErrorCode), kerr.ClusterAuthorizationFailed)
	if len(dcr.Resources[0].Configs)+len(dcr.Resources[1].Configs) != 0 {
		t.Error("configs leaked")
	}

	iac := kmsg.NewPtrIncrementalAlterConfigsRequest()
	iac.Version = 1
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeTopic, "t1"
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = "retention.ms", kmsg.StringPtr("1000")
	rr.Configs = append(rr.Configs, cfg)
	iac.Resources = append(iac.Resources, rr)
	wantErr(t, "incremental alter configs", kerr.ErrorForCode(serveAs(t, b, alice, iac).(*kmsg.IncrementalAlterConfigsResponse).Resources[0].ErrorCode), kerr.TopicAuthorizationFailed)
	ac := kmsg.NewPtrAlterConfigsRequest()
	ac.Version = 1
	acr := kmsg.NewAlterConfigsRequestResource()
	acr.ResourceType, acr.ResourceName = kmsg.ConfigResourceTypeBroker, ""
	ac.Resources = append(ac.Resources, acr)
	wantErr(t, "alter broker configs", kerr.ErrorForCode(serveAs(t, b, alice, ac).(*kmsg.AlterConfigsResponse).Resources[0].ErrorCode), kerr.ClusterAuthorizationFailed)
	if o, err := (dynconfig.Store{Meta: b.store}).Read(testCtx(t), dynconfig.Topics, "t1"); err != nil || len(o) != 0 {
		t.Errorf("t1's config changed: %v %v", o, err)
	}

	cluster := []struct {
		name string
		req  kmsg.Request
		code func(kmsg.Response) int16
	}{
		{"elect leaders", &kmsg.ElectLeadersRequest{Version: 1, TimeoutMillis: 1000}, func(r kmsg.Response) int16 { return r.(*kmsg.ElectLeadersResponse).ErrorCode }},
		{"alter reassignments", &kmsg.AlterPartitionAssignmentsRequest{TimeoutMillis: 1000}, func(r kmsg.Response) int16 { return r.(*kmsg.AlterPartitionAssignmentsResponse).ErrorCode }},
		{"list reassignments", &kmsg.ListPartitionReassignmentsRequest{TimeoutMillis: 1000}, func(r kmsg.Response) int16 { return r.(*kmsg.ListPartitionReassignmentsResponse).ErrorCode }},
		{"describe log dirs", &kmsg.DescribeLogDirsRequest{Version: 3}, func(r kmsg.Response) int16 { return r.(*kmsg.DescribeLogDirsResponse).ErrorCode }},
		{"describe acls", &kmsg.DescribeACLsRequest{Version: 1, ResourceType: 1, ResourcePatternType: 1, Operation: 1, PermissionType: 1}, func(r kmsg.Response) int16 { return r.(*kmsg.DescribeACLsResponse).ErrorCode }},
		{"leader and isr", &kmsg.LeaderAndISRRequest{Version: 5}, func(r kmsg.Response) int16 { return r.(*kmsg.LeaderAndISRResponse).ErrorCode }},
		{"stop replica", &kmsg.StopReplicaRequest{Version: 3}, func(r kmsg.Response) int16 { return r.(*kmsg.StopReplicaResponse).ErrorCode }},
		{"update metadata", &kmsg.UpdateMetadataRequest{Version: 7, ControllerEpoch: 1 << 30}, func(r kmsg.Response) int16 { return r.(*kmsg.UpdateMetadataResponse).ErrorCode }},
		{"controlled shutdown", &kmsg.ControlledShutdownRequest{Version: 3, BrokerID: 1}, func(r kmsg.Response) int16 { return r.(*kmsg.ControlledShutdownResponse).ErrorCode }},
		{"alter partition", &kmsg.AlterPartitionRequest{Version: 1, BrokerID: 1}, func(r kmsg.Response) int16 { return r.(*kmsg.AlterPartitionResponse).ErrorCode }},
		{"init producer id (no Write anywhere)", &kmsg.InitProducerIDRequest{Version: 2, TransactionTimeoutMillis: -1}, func(r kmsg.Response) int16 { return r.(*kmsg.InitProducerIDResponse).ErrorCode }},
	}
	epochBefore := b.cache.View().ControllerEpoch
	for _, c := range cluster {
		if got := c.code(serveAs(t, b, bob, c.req)); got != kerr.ClusterAuthorizationFailed.Code {
			t.Errorf("%s as bob: %v", c.name, kerr.ErrorForCode(got))
		}
	}
	if b.cache.View().ControllerEpoch != epochBefore {
		t.Error("an unauthorized UpdateMetadata changed the cluster view")
	}
	for _, name := range []string{"describe log dirs", "describe acls", "list reassignments"} {
		for _, c := range cluster {
			if c.name == name {
				if got := c.code(serveAs(t, b, superUser, c.req)); got != 0 {
					t.Errorf("%s as admin: %v", name, kerr.ErrorForCode(got))
				}
			}
		}
	}

	// InitProducerId: Write on any topic authorizes an idempotent producer
	// (KIP-679), a transactional one needs Write on its id.
	grant(t, b, allowACL(bob, acl.Topic, "t1", acl.Literal, acl.OpWrite))
	ip := serveAs(t, b, bob, &kmsg.InitProducerIDRequest{Version: 2, TransactionTimeoutMillis: -1}).(*kmsg.InitProducerIDResponse)
	if ip.ErrorCode != 0 || ip.ProducerID < 0 {
		t.Errorf("idempotent init as bob with Write on t1: %v", kerr.ErrorForCode(ip.ErrorCode))
	}
	tip := serveAs(t, b, bob, &kmsg.InitProducerIDRequest{Version: 2, TransactionalID: kmsg.StringPtr("tx"), TransactionTimeoutMillis: 1000}).(*kmsg.InitProducerIDResponse)
	wantErr(t, "transactional init", kerr.ErrorForCode(tip.ErrorCode), kerr.TransactionalIDAuthorizationFailed)

	wtm := kmsg.NewPtrWriteTxnMarkersRequest()
	wtm.Version = 1
	mk := kmsg.NewWriteTxnMarkersRequestMarker()
	mk.ProducerID, mk.Committed = 1, true
	mkt := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	mkt.Topic, mkt.Partitions = "t1", []int32{0}
	mk.Topics = append(mk.Topics, mkt)
	wtm.Markers = append(wtm.Markers, mk)
	wantErr(t, "write txn markers", kerr.ErrorForCode(serveAs(t, b, bob, wtm).(*kmsg.WriteTxnMarkersResponse).Markers[0].Topics[0].Partitions[0].ErrorCode), kerr.ClusterAuthorizationFailed)

	dcl := serveAs(t, b, bob, &kmsg.DescribeClusterRequest{IncludeClusterAuthorizedOperations: true}).(*kmsg.DescribeClusterResponse)
	if dcl.ErrorCode != 0 || dcl.ClusterAuthorizedOperations != 0 || len(dcl.Brokers) != 1 {
		t.Errorf("describe cluster as bob: %v ops %b brokers %d", kerr.ErrorForCode(dcl.ErrorCode), dcl.ClusterAuthorizedOperations, len(dcl.Brokers))
	}
}

// cacheTopicID is a topic's id from the cluster view.
func (b *Broker) cacheTopicID(t *testing.T, name string) [16]byte {
	t.Helper()
	var id [16]byte
	testwait.Until(t, waitTimeout, "topic "+name+" in the cluster view", func() bool {
		vt, ok := b.cache.View().Topic(name)
		id = vt.ID
		return ok
	})
	return id
}

// TestAuthorizedGroups: every group API needs its group ACL, offsets also
// the topic's, and refusals leave the group alone.
func TestAuthorizedGroups(t *testing.T) {
	b := authzBroker(t, nil)
	createTopicsAs(t, b, superUser, "t1", "t2")
	grant(t, b,
		allowACL(alice, acl.Group, "g1", acl.Literal, acl.OpRead),
		allowACL(alice, acl.Topic, "t1", acl.Literal, acl.OpRead),
	)

	findAs := func(p principal.Principal, key string, typ int8) error {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorKey, req.CoordinatorType = 2, key, typ
		var resp *kmsg.FindCoordinatorResponse
		testwait.Until(t, waitTimeout, "a coordinator answer", func() bool {
			resp = serveAs(t, b, p, req).(*kmsg.FindCoordinatorResponse)
			return resp.ErrorCode != kerr.CoordinatorNotAvailable.Code
		})
		return kerr.ErrorForCode(resp.ErrorCode)
	}
	wantErr(t, "find coordinator g1 as alice", findAs(alice, "g1", 0), nil)
	wantErr(t, "find coordinator g1 as bob", findAs(bob, "g1", 0), kerr.GroupAuthorizationFailed)
	wantErr(t, "find coordinator txn as alice", findAs(alice, "tx", 1), kerr.TransactionalIDAuthorizationFailed)

	join := kmsg.NewPtrJoinGroupRequest()
	join.Version, join.Group, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis, join.ProtocolType = 5, "g1", 10000, 10000, "consumer"
	proto := kmsg.NewJoinGroupRequestProtocol()
	proto.Name, proto.Metadata = "range", []byte{0}
	join.Protocols = append(join.Protocols, proto)
	jr := serveAs(t, b, bob, join).(*kmsg.JoinGroupResponse)
	if jr.ErrorCode != kerr.GroupAuthorizationFailed.Code || jr.Generation != -1 || jr.MemberID != "" {
		t.Errorf("bob join: %v gen %d member %q", kerr.ErrorForCode(jr.ErrorCode), jr.Generation, jr.MemberID)
	}
	wantErr(t, "bob sync", kerr.ErrorForCode(serveAs(t, b, bob, &kmsg.SyncGroupRequest{Version: 3, Group: "g1"}).(*kmsg.SyncGroupResponse).ErrorCode), kerr.GroupAuthorizationFailed)
	wantErr(t, "bob heartbeat", kerr.ErrorForCode(serveAs(t, b, bob, &kmsg.HeartbeatRequest{Version: 3, Group: "g1"}).(*kmsg.HeartbeatResponse).ErrorCode), kerr.GroupAuthorizationFailed)
	wantErr(t, "bob leave", kerr.ErrorForCode(serveAs(t, b, bob, &kmsg.LeaveGroupRequest{Version: 3, Group: "g1"}).(*kmsg.LeaveGroupResponse).ErrorCode), kerr.GroupAuthorizationFailed)

	commit := func(p principal.Principal) map[string]error {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Version, req.Group, req.Generation = 7, "g1", -1
		for _, n := range []string{"t1", "t2"} {
			rt := kmsg.NewOffsetCommitRequestTopic()
			rt.Topic = n
			rp := kmsg.NewOffsetCommitRequestTopicPartition()
			rp.Offset = 0
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		out := map[string]error{}
		for _, rt := range serveAs(t, b, p, req).(*kmsg.OffsetCommitResponse).Topics {
			out[rt.Topic] = kerr.ErrorForCode(rt.Partitions[0].ErrorCode)
		}
		return out
	}
	c := commit(alice)
	wantErr(t, "alice commit t1", c["t1"], nil)
	wantErr(t, "alice commit t2", c["t2"], kerr.TopicAuthorizationFailed)
	for n, err := range commit(bob) {
		wantErr(t, "bob commit "+n, err, kerr.GroupAuthorizationFailed)
	}

	// OffsetFetch: alice may read g1 but describe only t1; the admin's
	// commit to t2 stays hidden from her.
	adminCommit := kmsg.NewPtrOffsetCommitRequest()
	adminCommit.Version, adminCommit.Group, adminCommit.Generation = 7, "g1", -1
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic = "t2"
	rp := kmsg.NewOffsetCommitRequestTopicPartition()
	rp.Offset = 5
	rt.Partitions = append(rt.Partitions, rp)
	adminCommit.Topics = append(adminCommit.Topics, rt)
	if code := serveAs(t, b, superUser, adminCommit).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("admin commit: %v", kerr.ErrorForCode(code))
	}
	fetchAll := &kmsg.OffsetFetchRequest{Version: 7, Group: "g1"}
	all := serveAs(t, b, alice, fetchAll).(*kmsg.OffsetFetchResponse)
	if len(all.Topics) != 1 || all.Topics[0].Topic != "t1" {
		t.Errorf("alice's all-partitions offset fetch: %+v", all.Topics)
	}
	named := &kmsg.OffsetFetchRequest{Version: 7, Group: "g1", Topics: []kmsg.OffsetFetchRequestTopic{{Topic: "t2", Partitions: []int32{0}}}}
	nt := serveAs(t, b, alice, named).(*kmsg.OffsetFetchResponse).Topics
	if len(nt) != 1 || nt[0].Partitions[0].ErrorCode != kerr.TopicAuthorizationFailed.Code || nt[0].Partitions[0].Offset != -1 {
		t.Errorf("alice's offset fetch of t2: %+v", nt)
	}
	wantErr(t, "bob offset fetch", kerr.ErrorForCode(serveAs(t, b, bob, fetchAll).(*kmsg.OffsetFetchResponse).ErrorCode), kerr.GroupAuthorizationFailed)

	dg := serveAs(t, b, alice, &kmsg.DescribeGroupsRequest{Version: 5, Groups: []string{"g1", "other"}, IncludeAuthorizedOperations: true}).(*kmsg.DescribeGroupsResponse)
	if dg.Groups[0].ErrorCode != 0 || dg.Groups[0].AuthorizedOperations != 1<<acl.OpRead|1<<acl.OpDescribe {
		t.Errorf("describe g1 as alice: %v ops %b", kerr.ErrorForCode(dg.Groups[0].ErrorCode), dg.Groups[0].AuthorizedOperations)
	}
	wantErr(t, "describe other as alice", kerr.ErrorForCode(dg.Groups[1].ErrorCode), kerr.GroupAuthorizationFailed)

	listAs := func(p principal.Principal) []string {
		var out []string
		for _, g := range serveAs(t, b, p, &kmsg.ListGroupsRequest{Version: 3}).(*kmsg.ListGroupsResponse).Groups {
			out = append(out, g.Group)
		}
		return out
	}
	if got := listAs(bob); len(got) != 0 {
		t.Errorf("bob lists %v", got)
	}
	if got := listAs(alice); len(got) != 1 || got[0] != "g1" {
		t.Errorf("alice lists %v", got)
	}

	del := serveAs(t, b, alice, &kmsg.DeleteGroupsRequest{Version: 2, Groups: []string{"g1"}}).(*kmsg.DeleteGroupsResponse)
	wantErr(t, "alice delete g1 (Read only)", kerr.ErrorForCode(del.Groups[0].ErrorCode), kerr.GroupAuthorizationFailed)
	od := &kmsg.OffsetDeleteRequest{Group: "g1", Topics: []kmsg.OffsetDeleteRequestTopic{{Topic: "t2", Partitions: []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}}}}
	wantErr(t, "alice offset delete", kerr.ErrorForCode(serveAs(t, b, alice, od).(*kmsg.OffsetDeleteResponse).ErrorCode), kerr.GroupAuthorizationFailed)
	if got := serveAs(t, b, superUser, fetchAll).(*kmsg.OffsetFetchResponse); len(got.Topics) != 2 {
		t.Errorf("after refused deletes the admin sees %d committed topics, want 2", len(got.Topics))
	}
}

// TestACLAPIs: CreateAcls/DescribeAcls/DeleteAcls through the broker, their
// own authorization, Kafka's validation, and SECURITY_DISABLED without an
// authorizer.
func TestACLAPIs(t *testing.T) {
	b := authzBroker(t, nil)
	req := kmsg.NewPtrCreateACLsRequest()
	req.Version = 1
	badCluster := allowACL(alice, acl.Cluster, "other", acl.Literal, acl.OpAlter)
	empty := allowACL(alice, acl.Topic, "", acl.Literal, acl.OpRead)
	slash := allowACL(alice, acl.Topic, "a/b", acl.Literal, acl.OpRead)
	req.Creations = []kmsg.CreateACLsRequestCreation{allowACL(alice, acl.Topic, "t", acl.Literal, acl.OpRead), badCluster, empty, slash}
	if r := serveAs(t, b, alice, req).(*kmsg.CreateACLsResponse); r.Results[0].ErrorCode != kerr.ClusterAuthorizationFailed.Code {
		t.Fatalf("alice creates ACLs: %v", kerr.ErrorForCode(r.Results[0].ErrorCode))
	}
	r := serveAs(t, b, superUser, req).(*kmsg.CreateACLsResponse)
	msgs := []string{"", "The only valid name for the CLUSTER resource is kafka-cluster", "Invalid empty resource name", "Failed to create ACL"}
	for i, res := range r.Results {
		want := int16(0)
		if i > 0 {
			want = kerr.InvalidRequest.Code
		}
		got := ""
		if res.ErrorMessage != nil {
			got = *res.ErrorMessage
		}
		if res.ErrorCode != want || got != msgs[i] {
			t.Errorf("creation %d: %v %q", i, kerr.ErrorForCode(res.ErrorCode), got)
		}
	}

	describe := &kmsg.DescribeACLsRequest{Version: 1, ResourceType: 1, ResourcePatternType: 1, Operation: 1, PermissionType: 1}
	d := serveAs(t, b, superUser, describe).(*kmsg.DescribeACLsResponse)
	if d.ErrorCode != 0 || len(d.Resources) != 1 || d.Resources[0].ResourceName != "t" || len(d.Resources[0].ACLs) != 1 || d.Resources[0].ACLs[0].Principal != "User:alice" {
		t.Fatalf("describe: %+v", d)
	}
	if !b.authz.Authorize(acl.Session{Principal: alice, Host: "1.2.3.4"}, acl.OpRead, acl.Topic, "t") {
		t.Fatal("created ACL not in force")
	}

	del := &kmsg.DeleteACLsRequest{Version: 1, Filters: []kmsg.DeleteACLsRequestFilter{
		{ResourceType: acl.Topic, ResourceName: kmsg.StringPtr("t"), ResourcePatternType: acl.Match, Operation: acl.OpAny, PermissionType: 1},
		{ResourceType: 99, ResourcePatternType: 1, Operation: 1, PermissionType: 1},
	}}
	if dr := serveAs(t, b, bob, del).(*kmsg.DeleteACLsResponse); dr.Results[0].ErrorCode != kerr.ClusterAuthorizationFailed.Code {
		t.Fatalf("bob deletes ACLs: %v", kerr.ErrorForCode(dr.Results[0].ErrorCode))
	}
	dr := serveAs(t, b, superUser, del).(*kmsg.DeleteACLsResponse)
	if dr.Results[0].ErrorCode != 0 || len(dr.Results[0].MatchingACLs) != 1 || dr.Results[0].MatchingACLs[0].ResourceName != "t" {
		t.Errorf("delete result: %+v", dr.Results[0])
	}
	wantErr(t, "unknown filter", kerr.ErrorForCode(dr.Results[1].ErrorCode), kerr.InvalidRequest)
	if b.authz.Authorize(acl.Session{Principal: alice, Host: "1.2.3.4"}, acl.OpRead, acl.Topic, "t") {
		t.Fatal("deleted ACL still in force")
	}

	open, _ := startTestBroker(t, testConfig(t, t.TempDir(), nil))
	wantErr(t, "describe without authorizer", kerr.ErrorForCode(serveAs(t, open, bob, describe).(*kmsg.DescribeACLsResponse).ErrorCode), kerr.SecurityDisabled)
	wantErr(t, "create without authorizer", kerr.ErrorForCode(serveAs(t, open, bob, req).(*kmsg.CreateACLsResponse).Results[0].ErrorCode), kerr.SecurityDisabled)
	if got := produceCodes(t, open, bob, "anything")["anything"]; got == kerr.TopicAuthorizationFailed {
		t.Error("a broker without an authorizer refused a produce")
	}
	// Without an authorizer, authorized operations are everything the
	// resource supports, as Kafka answers.
	if got := metadataAs(t, open, bob, []string{}, false).AuthorizedOperations; got != 1<<5|1<<9|1<<10|1<<11|1<<12|1<<7|1<<8 {
		t.Errorf("cluster authorized operations without an authorizer %b", got)
	}
}

// TestSuperUserAndAllowIfNoACL: allow.everyone.if.no.acl.found opens
// resources without ACLs only.
func TestAllowEveryoneIfNoACL(t *testing.T) {
	b := authzBroker(t, map[string]string{"allow.everyone.if.no.acl.found": "true"})
	createTopicsAs(t, b, superUser, "open", "guarded")
	grant(t, b, allowACL(alice, acl.Topic, "guarded", acl.Literal, acl.OpWrite))
	got := produceCodes(t, b, bob, "open", "guarded")
	wantErr(t, "bob produce open", got["open"], nil)
	wantErr(t, "bob produce guarded", got["guarded"], kerr.TopicAuthorizationFailed)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := b.api.Local(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatal(err)
	}
}
