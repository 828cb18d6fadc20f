package znode

import (
	"strconv"

	"kafgo/internal/configznode"
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
	ConfigPath                   = configznode.Root
	ConfigChangesPath            = configznode.ChangesPath
	IsrChangeNotificationPath    = "/isr_change_notification"
	LatestProducerIDBlockPath    = "/latest_producer_id_block"
	LogDirEventNotificationPath  = "/log_dir_event_notification"
	ConsumersPath                = "/consumers"
)

// Name prefixes of the persistent-sequential notification children.
const (
	ConfigChangePrefix = configznode.ChangePrefix
	IsrChangePrefix    = "isr_change_"
	LogDirEventPrefix  = "log_dir_event_"
)

// Config entity types, the second component of /config/<type>/<name>, and
// the entity name of the cluster-wide broker default.
const (
	ConfigTypeTopic     = configznode.Topics
	ConfigTypeClient    = configznode.Clients
	ConfigTypeUser      = configznode.Users
	ConfigTypeBroker    = configznode.Brokers
	DefaultBrokerEntity = configznode.DefaultEntity
)

// PersistentPaths are the znodes a Kafka 2.x broker creates at start-up if
// missing (ZkData.PersistentZkPaths), in Kafka's order.
var PersistentPaths = []string{
	ConsumersPath,
	BrokerIDsPath,
	BrokerTopicsPath,
	ConfigChangesPath,
	DeleteTopicsPath,
	BrokerSeqIDPath,
	IsrChangeNotificationPath,
	LatestProducerIDBlockPath,
	LogDirEventNotificationPath,
	ConfigPath + "/" + ConfigTypeTopic,
	ConfigPath + "/" + ConfigTypeClient,
	ConfigPath + "/" + ConfigTypeUser,
	ConfigPath + "/" + ConfigTypeBroker,
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

// EntityConfigPath is /config/<entityType>/<entity>.
func EntityConfigPath(entityType, entity string) string {
	return configznode.Path(entityType, entity)
}

// TopicConfigPath is /config/topics/<topic>.
func TopicConfigPath(topic string) string { return EntityConfigPath(ConfigTypeTopic, topic) }

// BrokerConfigPath is /config/brokers/<id>, or /config/brokers/<default>
// for DefaultBrokerEntity.
func BrokerConfigPath(broker string) string { return EntityConfigPath(ConfigTypeBroker, broker) }

// ConfigChangeSeqPath is the path to Create with PersistentSequential for a
// config change notification; the store appends the 10-digit counter.
func ConfigChangeSeqPath() string { return configznode.ChangeSeqPath() }

// IsrChangeSeqPath is the PersistentSequential create path for an ISR
// change notification.
func IsrChangeSeqPath() string { return IsrChangeNotificationPath + "/" + IsrChangePrefix }

// LogDirEventSeqPath is the PersistentSequential create path for a log dir
// event notification.
func LogDirEventSeqPath() string { return LogDirEventNotificationPath + "/" + LogDirEventPrefix }
