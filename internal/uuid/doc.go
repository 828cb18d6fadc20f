// Package uuid is Kafka's 128-bit identifier (org.apache.kafka.common.Uuid) as
// used for cluster ids (/cluster/id, meta.properties cluster.id) and topic ids
// (/brokers/topics/<t> "topic_id", partition.metadata "topic_id", KIP-516).
//
// Text form: the 16 bytes, most significant first, in URL-safe base64 without
// padding, always 22 characters, e.g. "3s3o9J7JRYCO1d3n7uFvHg". Parse also
// accepts the padded 24-character form ("...==") that Java's URL decoder takes.
//
// Reserved values: Zero (all zero bytes, "AAAAAAAAAAAAAAAAAAAAAA", meaning "no
// id") and MetadataTopicID (0...01, "AAAAAAAAAAAAAAAAAAAAAQ", the KRaft
// __cluster_metadata topic). New never returns a reserved value, nor one whose
// text starts with '-', because Kafka's command-line tools would read such an
// id as a flag (Uuid.randomUuid does the same).
//
// This package imports nothing from kafgo, so storage (below meta in the
// dependency order) can use it for partition.metadata.
package uuid
