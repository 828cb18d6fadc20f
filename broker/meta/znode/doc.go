// Package znode is Kafka 2.x's layout in ZooKeeper (kafka.zk.ZkData): the
// paths, and the JSON of every znode, so kafgo's controller and brokers read
// and write exactly what Kafka's do, on a real ZooKeeper or the embedded
// store (package meta).
//
// Each znode type has Marshal() ([]byte, error), writing Kafka's fields
// with no whitespace and without HTML escaping (as Jackson writes), and
// Unmarshal(data) / ParseX(data), which ignore unknown fields and accept
// every version Kafka 2.x or later writes.
//
// Layout (P = persistent, E = ephemeral, S = sequential, %010d suffix):
//
//	/cluster/id                                   P  {"version":"1","id":"<uuid>"}   (version is a string)
//	/controller                                   E  {"version":1,"brokerid":1,"timestamp":"<ms>"}
//	/controller_epoch                             P  decimal epoch, e.g. 1 (created as 0)
//	/brokers/ids/<id>                             E  BrokerInfo, version 4 or 5
//	/brokers/topics/<t>                           P  TopicAssignment, version 1..3
//	/brokers/topics/<t>/partitions/<p>/state      P  {"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
//	/brokers/seqid                                P  unused data; its version generates broker ids
//	/admin/delete_topics/<t>                      P  empty; the controller deletes it when done
//	/admin/reassign_partitions                    P  {"version":1,"partitions":[{"topic":..,"partition":..,"replicas":[..]}]}
//	/admin/preferred_replica_election             P  {"version":1,"partitions":[{"topic":..,"partition":..}]}
//	/config/{topics,brokers,clients,users}/<name> P  {"version":1,"config":{"k":"v"}}  (brokers/<default> too)
//	/config/changes/config_change_<seq>           PS {"version":2,"entity_path":"topics/t"}
//	/isr_change_notification/isr_change_<seq>     PS {"version":1,"partitions":[{"topic":..,"partition":..}]}
//	/latest_producer_id_block                     P  {"version":1,"broker":1,"block_start":"0","block_end":"999"}
//	/log_dir_event_notification/log_dir_event_<seq> PS {"version":1,"broker":1,"event":1}
//	/kafka-acl/<ResourceType>/<name>              P  {"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Read","host":"*"}]}
//	/kafka-acl-extended/prefixed/<ResourceType>/<name> P  same data, for PREFIXED patterns
//	/kafka-acl-changes/acl_changes_<seq>          PS Topic:orders   (plain text, a literal resource)
//	/kafka-acl-extended-changes/acl_changes_<seq> PS {"version":1,"resourceType":"Topic","name":"o-","patternType":"PREFIXED"}
//
// Field order: Marshal follows the order of the reference examples, which
// for broker registrations, partition state, /controller and /cluster/id
// is also byte-for-byte what Kafka writes. Where Kafka serialises a hash
// map (the partition map of /brokers/topics/<t>, config maps, and the
// top-level keys of a v3 topic znode) its order is an accident of hashing;
// kafgo writes map keys sorted (partitions numerically) so the bytes are
// reproducible. No Kafka parser depends on key order.
//
// GetOrCreateClusterID, EnsurePersistentPaths and AllocateProducerIDBlock
// are the broker start-up and producer-id steps Kafka performs on these
// znodes. Ids (cluster id, topic id) are package uuid's Kafka Uuid.
package znode
