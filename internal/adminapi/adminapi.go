// Package adminapi holds the JSON documents of a broker's admin endpoint
// (admin.listener): what broker/admin serves and what clients such as
// kafgo tui read. It is a leaf so that a client needs none of the broker's
// packages to decode them.
package adminapi

// Paths of the documents.
const (
	BrokerPath     = "/v1/broker"
	PartitionsPath = "/v1/partitions"
)

// Broker is GET /v1/broker: who the broker is and who it thinks the
// controller is.
type Broker struct {
	BrokerID        int32  `json:"broker_id"`
	ClusterID       string `json:"cluster_id"`
	ControllerID    int32  `json:"controller_id"`
	IsController    bool   `json:"is_controller"`
	ControllerEpoch int32  `json:"controller_epoch"`
}

// Partition is one element of GET /v1/partitions: a replica hosted by the
// answering broker. Only a leader fills ReplicaLEOs, keyed by broker id,
// since only the leader learns its followers' log end offsets (from their
// fetches).
type Partition struct {
	Topic          string           `json:"topic"`
	Partition      int32            `json:"partition"`
	Leader         int32            `json:"leader"`
	LeaderEpoch    int32            `json:"leader_epoch"`
	Replicas       []int32          `json:"replicas"`
	ISR            []int32          `json:"isr"`
	IsLeader       bool             `json:"is_leader"`
	HighWatermark  int64            `json:"high_watermark"`
	LogStartOffset int64            `json:"log_start_offset"`
	LogEndOffset   int64            `json:"log_end_offset"`
	ReplicaLEOs    map[string]int64 `json:"replica_log_end_offsets,omitempty"`
}
