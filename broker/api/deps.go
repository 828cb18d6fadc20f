package api

import (
	"context"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/clientquota"
	"kafgo/broker/clusterview"
	"kafgo/broker/config"
	"kafgo/broker/coordlog"
	"kafgo/broker/credentials"
	"kafgo/broker/group"
	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/topicadmin"
	"kafgo/broker/txn"
	"kafgo/internal/placement"
)

// Deps are the broker parts handlers use.
type Deps struct {
	BrokerID            int32
	ClusterID           string
	InterBrokerListener string
	Cache               *clusterview.Cache
	Replicas            Replicas
	Logs                *storage.Manager
	Controller          Controller
	Admin               TopicAdmin
	Groups              Groups
	Txns                Txns
	// QuotaConfigs reads and alters the client quota configs in the
	// metadata store (clientquota.Store).
	QuotaConfigs QuotaConfigs
	Logger       *slog.Logger
	// Authorizer checks every request's principal against the ACLs; nil
	// (authorizer.class.name empty) allows everything.
	Authorizer *acl.Authorizer
	// ClientQuotas enforces client quotas; nil charges nobody.
	ClientQuotas *clientquota.Manager
	// Credentials holds the users' SCRAM credentials (/config/users).
	Credentials *credentials.Store
	// Metrics receives the request metrics; nil keeps none.
	Metrics *metrics.Registry

	// Config returns the broker's current configuration.
	Config func() *config.Broker
	// DescribedConfig returns the configuration DescribeConfigs shows for
	// this broker: with the dynamic configs the store holds now, which
	// Config has once their change notifications are applied.
	DescribedConfig func(ctx context.Context) *config.Broker
	// Configs reads and updates the dynamic configs in the metadata store
	// (/config/<type>/<entity>, with change notifications every broker
	// applies, this one included).
	Configs ConfigStore
	// NextProducerID allocates a producer id.
	NextProducerID func(ctx context.Context) (int64, error)
	// RequestTimeout bounds in-handler waits that have no client timeout.
	RequestTimeout time.Duration
	// OnTxnMarker, if set, is called by WriteTxnMarkers for each marker it
	// appended to a __consumer_offsets partition, once the marker is
	// replicated to the ISR (acks=all satisfied), with the transaction's
	// outcome: the group coordinator then makes the producer's pending
	// transactional offset commits on tp visible (commit) or drops them
	// (abort), as Kafka's scheduleHandleTxnCompletion. It runs on the
	// request's goroutine and should not block for long. The offsets-log
	// reader (broker/offsets_log.go, Log().ReadBytes) returns control
	// batches as written, so a loading coordinator sees the markers too
	// (producer id in the batch header, COMMIT/ABORT in the record key:
	// record.ReadEndTxnMarker).
	OnTxnMarker func(tp partid.TopicPartition, producerID int64, producerEpoch int16, commit bool)
}

// ConfigStore is the dynamic config store (dynconfig.Store).
type ConfigStore interface {
	Read(ctx context.Context, entityType, name string) (map[string]string, error)
	Update(ctx context.Context, entityType, name string, fn func(cfg map[string]string) error) error
}

// The handlers see the broker's parts through these interfaces, each the
// methods they call, so a handler can be tested with a fake of the part it
// uses (the broker gives the real ones: replica.Manager,
// controller.Controller, topicadmin.Admin, group.Coordinator,
// txn.Coordinator, clientquota.Store).

// Replicas is the partitions on this broker (replica.Manager).
type Replicas interface {
	AppendToLeaders(acks int16, parts []replica.ProducePartition) []replica.ProduceResult
	AppendTxnMarkers(markers []replica.TxnMarker) []replica.ProduceResult
	AcksDone(results []replica.ProduceResult) bool
	WaitForAcks(ctx context.Context, timeout time.Duration, results []replica.ProduceResult)
	Fetch(ctx context.Context, req replica.FetchRequest) []replica.FetchResult
	DeleteRecords(ctx context.Context, timeout time.Duration, parts []replica.DeleteRecordsPartition) []replica.DeleteRecordsResult
	HandleLeaderAndISR(req *kmsg.LeaderAndISRRequest) *kmsg.LeaderAndISRResponse
	HandleStopReplica(req *kmsg.StopReplicaRequest) *kmsg.StopReplicaResponse
	LeaderPartition(tp partid.TopicPartition) (*replica.Partition, error)
	Partition(tp partid.TopicPartition) (*replica.Partition, bool)
}

// Controller is the controller's request handling (controller.Controller).
type Controller interface {
	IsActive() bool
	AlterPartition(ctx context.Context, req *kmsg.AlterPartitionRequest) (*kmsg.AlterPartitionResponse, error)
	AlterPartitionAssignments(ctx context.Context, req *kmsg.AlterPartitionAssignmentsRequest) (*kmsg.AlterPartitionAssignmentsResponse, error)
	ListPartitionReassignments(ctx context.Context, req *kmsg.ListPartitionReassignmentsRequest) (*kmsg.ListPartitionReassignmentsResponse, error)
	ControlledShutdown(ctx context.Context, req *kmsg.ControlledShutdownRequest) (*kmsg.ControlledShutdownResponse, error)
	ElectLeaders(ctx context.Context, req *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, error)
}

// TopicAdmin creates, grows and deletes topics in the metadata store
// (topicadmin.Admin).
type TopicAdmin interface {
	TopicExists(ctx context.Context, name string) (bool, error)
	CreateTopic(ctx context.Context, spec topicadmin.TopicSpec, validateOnly bool) (map[int32][]int32, error)
	AddPartitions(ctx context.Context, name string, total int32, newAssignment [][]int32, validateOnly bool) error
	DeleteTopic(ctx context.Context, name string) error
	LiveBrokers(ctx context.Context) ([]placement.BrokerRack, error)
}

// Groups is the group coordinator (group.Coordinator).
type Groups interface {
	Placement() *coordlog.Placement
	PartitionFor(group string) int32
	Done() <-chan struct{}
	JoinGroup(req group.JoinRequest) <-chan group.JoinResult
	SyncGroup(req group.SyncRequest) <-chan group.SyncResult
	Heartbeat(req group.HeartbeatRequest) *kerr.Error
	LeaveGroup(groupID string, members []group.LeavingMember) group.LeaveResult
	DescribeGroup(id string) group.Description
	ListGroups(states []string) ([]group.Overview, *kerr.Error)
	DeleteGroups(ids []string) <-chan []*kerr.Error
	CommitOffsets(req group.CommitRequest) <-chan []*kerr.Error
	TxnCommitOffsets(req group.TxnCommitRequest) <-chan []*kerr.Error
	FetchOffsets(groupID string, tps []group.TopicPartition, requireStable bool) ([]group.FetchedOffset, *kerr.Error)
	DeleteOffsets(groupID string, tps []group.TopicPartition) (<-chan []*kerr.Error, *kerr.Error)
}

// Txns is the transaction coordinator (txn.Coordinator).
type Txns interface {
	Placement() *coordlog.Placement
	Done() <-chan struct{}
	InitProducerID(ctx context.Context, id string, timeoutMs int32, expected *txn.ProducerIDEpoch) <-chan txn.InitResult
	AddPartitions(id string, producerID int64, epoch int16, tps []partid.TopicPartition) <-chan *kerr.Error
	EndTxn(id string, producerID int64, epoch int16, commit bool) <-chan *kerr.Error
	Describe(ids []string) []txn.Description
	List(states []string, producerIDs []int64) ([]txn.Listing, []string, *kerr.Error)
}

// QuotaConfigs is the client quota configs in the metadata store
// (clientquota.Store).
type QuotaConfigs interface {
	Describe(ctx context.Context, f clientquota.Filter) (map[clientquota.Entity]map[string]float64, error)
	Alter(ctx context.Context, e clientquota.Entity, ops []clientquota.Op, validateOnly bool) error
}
