package znode

import (
	"strconv"

	"kafgo/broker/meta/dynconfig"
)

// Fixed znode paths of Kafka 2.x (kafka.zk.ZkData).
const (
	ClusterPath                  = "/cluster"
	ClusterIDPath                = "/cluster/id"
	ControllerPath               = "/controller"
	ControllerEpochPath          = "/controller_epoch"
	BrokersPath                  = "/brokers"
	BrokerIDsPath                = "/brokers/ids"
	BrokerTopicsPath             = "/brokers/topics"
	BrokerSeqIDPath              = "/brokers/seqid"
	AdminPath                    = "/admin"
	DeleteTopicsPath             = "/admin/delete_topics"
	ReassignPartitionsPath       = "/admin/reassign_partitions"
	PreferredReplicaElectionPath = "/admin/preferred_replica_election"
	IsrChangeNotificationPath    = "/isr_change_notification"
	LatestProducerIDBlockPath    = "/latest_producer_id_block"
	LogDirEventNotificationPath  = "/log_dir_event_notification"
	ConsumersPath                = "/consumers"
)

// Name prefixes of the persistent-sequential notification children.
const (
	IsrChangePrefix   = "isr_change_"
	LogDirEventPrefix = "log_dir_event_"
)

// PersistentPaths are the znodes a Kafka 2.x broker creates at start-up if
// missing (ZkData.PersistentZkPaths), in Kafka's order.
var PersistentPaths = []string{
	ConsumersPath,
	BrokerIDsPath,
	BrokerTopicsPath,
	dynconfig.ChangesPath,
	DeleteTopicsPath,
	BrokerSeqIDPath,
	IsrChangeNotificationPath,
	LatestProducerIDBlockPath,
	LogDirEventNotificationPath,
	dynconfig.Root + "/" + dynconfig.Topics,
	dynconfig.Root + "/" + dynconfig.Clients,
	dynconfig.Root + "/" + dynconfig.Users,
	dynconfig.Root + "/" + dynconfig.Brokers,
}

// BrokerIDPath is /brokers/ids/<id>, a broker's ephemeral registration.
func BrokerIDPath(id int32) string { return BrokerIDsPath + "/" + strconv.Itoa(int(id)) }

// TopicPath is /brokers/topics/<topic>, the replica assignment.
func TopicPath(topic string) string { return BrokerTopicsPath + "/" + topic }

// TopicPartitionsPath is /brokers/topics/<topic>/partitions.
func TopicPartitionsPath(topic string) string { return TopicPath(topic) + "/partitions" }

// PartitionPath is /brokers/topics/<topic>/partitions/<p>.
func PartitionPath(topic string, partition int32) string {
	return TopicPartitionsPath(topic) + "/" + strconv.Itoa(int(partition))
}

// PartitionStatePath is /brokers/topics/<topic>/partitions/<p>/state.
func PartitionStatePath(topic string, partition int32) string {
	return PartitionPath(topic, partition) + "/state"
}

// DeleteTopicPath is /admin/delete_topics/<topic>, the deletion request.
func DeleteTopicPath(topic string) string { return DeleteTopicsPath + "/" + topic }

// IsrChangeSeqPath is the PersistentSequential create path for an ISR
// change notification.
func IsrChangeSeqPath() string { return IsrChangeNotificationPath + "/" + IsrChangePrefix }

// LogDirEventSeqPath is the PersistentSequential create path for a log dir
// event notification.
func LogDirEventSeqPath() string { return LogDirEventNotificationPath + "/" + LogDirEventPrefix }
