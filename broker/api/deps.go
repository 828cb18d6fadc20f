package api

import (
	"context"
	"log/slog"
	"time"

	"kafgo/broker/acl"
	"kafgo/broker/clientquota"
	"kafgo/broker/clusterview"
	"kafgo/broker/config"
	"kafgo/broker/controller"
	"kafgo/broker/credentials"
	"kafgo/broker/group"
	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/txn"
)

// Deps are the broker parts handlers use.
type Deps struct {
	BrokerID            int32
	ClusterID           string
	InterBrokerListener string
	Cache               *clusterview.Cache
	Replicas            *replica.Manager
	Logs                *storage.Manager
	Controller          *controller.Controller
	Admin               *controller.Admin
	Groups              *group.Coordinator
	Txns                *txn.Coordinator
	Logger              *slog.Logger
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

// internalTopics are topics clients may not produce to.
var internalTopics = map[string]bool{"__consumer_offsets": true, "__transaction_state": true}

// ConfigStore is the dynamic config store (dynconfig.Store).
type ConfigStore interface {
	Read(ctx context.Context, entityType, name string) (map[string]string, error)
	Update(ctx context.Context, entityType, name string, fn func(cfg map[string]string) error) error
}
