// Package topics implements `kafgo topics`, the client side of Kafka's
// kafka-topics.sh: create, list, describe, alter (partition count) and
// delete topics over the Kafka protocol (CreateTopics, Metadata,
// DescribeConfigs, CreatePartitions, DeleteTopics), never by reaching into a
// broker's state.
//
// Output follows TopicCommand of the ZooKeeper era (Kafka 2.8) byte for
// byte, because operators' scripts parse it:
//
//	Created topic <t>.
//	Topic: <t>\tTopicId: <id>\tPartitionCount: <n>\tReplicationFactor: <rf>\tConfigs: <k=v,...>
//	\tTopic: <t>\tPartition: <p>\tLeader: <id|none>\tReplicas: <ids>\tIsr: <ids>
//
// TopicId is the topic UUID in Java's Uuid.toString form (URL-safe base64
// without padding) and is left out when the broker reports the zero UUID.
// Configs lists, sorted by name, every config whose source is not
// DEFAULT_CONFIG, as 2.8's TopicCommand does (config.entries.filter(
// !_.isDefault)): the topic's own overrides, and the broker's static and
// dynamic configs behind a topic config (min.insync.replicas=2 from the
// broker's file); --topics-with-overrides keeps the topics that have any.
// Adding/Removing Replicas are not printed: Metadata does not carry them.
//
// Failures while talking to the cluster are printed as
// "Error while executing topic command : <msg>" on the output writer, as
// Kafka does on stdout, and returned so the command exits 1.
package topics
