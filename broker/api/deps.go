package api

import (
	"context"
	"log/slog"
	"time"

	"kafgo/broker/clusterview"
	"kafgo/broker/config"
	"kafgo/broker/controller"
	"kafgo/broker/group"
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

	// Config returns the broker's current configuration.
	Config func() *config.Broker
	// TopicOverrides returns a topic's config overrides.
	TopicOverrides func(topic string) map[string]string
	// AlterBrokerConfig persists dynamic broker configs (entity is a broker
	// id or "<default>") and applies them.
	AlterBrokerConfig func(ctx context.Context, entity string, configs map[string]string) error
	// NextProducerID allocates a producer id.
	NextProducerID func(ctx context.Context) (int64, error)
	// RequestTimeout bounds in-handler waits that have no client timeout.
	RequestTimeout time.Duration
	// OnTxnMarker is told of every transaction marker written to a
	// partition this broker leads (WriteTxnMarkers calls it once the
	// marker is appended): on __consumer_offsets it makes the producer's
	// pending transactional offsets committed or drops them.
	OnTxnMarker func(tp partid.TopicPartition, producerID int64, producerEpoch int16, commit bool)
}

// internalTopics are topics clients may not produce to.
var internalTopics = map[string]bool{"__consumer_offsets": true, "__transaction_state": true}
