// Package dynconfig is Kafka's dynamic configuration in the metadata store
// (Kafka 2.x's ZooKeeper layout: kafka.zk.ConfigEntityZNode,
// ConfigEntityChangeNotificationSequenceZNode, Sanitizer,
// AdminZkClient.changeConfigs, DynamicConfigManager), in one place for every
// writer and reader: the brokers' AlterConfigs and IncrementalAlterConfigs,
// client quotas, SCRAM credentials, and the configs tool's --zookeeper mode.
//
//	/config/<type>/<sanitized name>           {"version":1,"config":{"k":"v",...}}
//	/config/changes/config_change_<10 digits> {"version":2,"entity_path":"<type>/<sanitized name>"}
//
// Types are topics, clients, users and brokers; <default> names the default
// entity of a type. Config values are strings, keys written sorted, with no
// HTML escaping ("<default>" stays as Jackson writes it); a hand-written
// number value is read as its decimal text. A user's znode holds its SCRAM
// credentials (SCRAM-SHA-256, SCRAM-SHA-512) and its quotas side by side; a
// user's client id is users/<u>/clients/<c>. Version 1 notifications
// ({"version":1,"entity_type":"topics","entity_name":"t"}) are read too.
//
// User and client names are sanitized as Kafka's Sanitizer does: the UTF-8
// bytes URL-encoded as Java's URLEncoder encodes them (letters, digits and
// ".-_" kept, every other byte %XX in upper-case hex: a space is %20, '*'
// is %2A), so any principal or client id is a valid znode name.
//
// Writes go through Store.Update: read the entity's znode with its version,
// change a copy, write it back at that version (creating it if missing),
// and read again when another writer got there first, so two changes made
// at once through different brokers (or a broker and the configs tool) both
// stay; then a change notification tells every broker. Changes follows the
// notifications and hands each to the subsystems registered for its entity
// type.
package dynconfig
