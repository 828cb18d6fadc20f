// Package configs is kafgo configs: Kafka's kafka-configs.sh (ConfigCommand)
// for topic and broker configs over the Kafka protocol, with its flags and
// its output lines.
//
//   - --describe [--all] asks DescribeConfigs with synonyms and prints,
//     sorted by name, the entries a dynamic override set ("Dynamic
//     configs for topic t are:"), or every entry with --all; with no
//     --entity-name it describes every topic, or every broker and the
//     cluster-wide broker default.
//   - --alter --add-config k=v,k2=[a,b] --delete-config k sends
//     IncrementalAlterConfigs (SET and DELETE); deleting a topic override
//     that is not set is refused first, as Kafka does.
//
// Users and clients carry client quotas (quotas.go), which Kafka's tool
// reaches through DescribeClientQuotas and AlterClientQuotas with
// --bootstrap-server:
//
//   - entities are --entity-type users|clients with --entity-name or
//     --entity-default (users and clients together name a user's client
//     id; the n-th name or default goes with the n-th type), or the
//     shortcuts --user, --client, --user-defaults, --client-defaults;
//   - --describe prints "Quota configs for user-principal 'alice',
//     client-id 'c1' are producer_byte_rate=1048576.0" per entity (values
//     as Java prints a double; "the default user-principal" for a
//     default); without a name, every entity of the type;
//   - --alter accepts quota keys only, refuses to delete one that is not
//     set ("Invalid config(s): k"), and prints "Completed updating config
//     for user alice." or "Completed updating default config for clients
//     in the cluster.".
//
// Users also hold SCRAM credentials (scram.go): --add-config
// 'SCRAM-SHA-256=[iterations=8192,password=p]' salts the password on the
// client and sends AlterUserScramCredentials, --delete-config SCRAM-SHA-256
// removes it, and --describe of users adds "SCRAM credential configs for
// user-principal 'alice' are SCRAM-SHA-256=iterations=8192,
// SCRAM-SHA-512=iterations=4096" from DescribeUserScramCredentials, as
// kafka-configs does with --bootstrap-server.
//
// With --zookeeper instead of --bootstrap-server (zookeeper.go, RunZooKeeper)
// the tool writes users' SCRAM credentials straight into ZooKeeper, as
// kafka-configs --zookeeper does, so the brokers' own SCRAM user exists
// before the first broker starts: the credential is derived here
// (internal/scram) and stored in /config/users/<sanitized user> with the
// user's other keys kept, then /config/changes is notified: the brokers'
// own ZooKeeper client (broker/meta) and dynamic config store
// (broker/meta/dynconfig, whose version-checked update a broker's
// concurrent change cannot undo); the output is Kafka's, deprecation
// warning first, then "Completed updating config for entity:
// user-principal 'admin'." or "Configs for user-principal 'admin' are
// SCRAM-SHA-512=salt=...,iterations=4096". Only SCRAM keys of named users
// are altered this way; the --bootstrap-server mode imports no broker
// package.
//
// Other entity types (ips, broker-loggers, client-metrics, groups) are
// refused with a message: kafgo has no IP quotas, loggers or client
// metrics to configure.
package configs
