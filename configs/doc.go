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
// Users (--entity-type users, or --user) hold SCRAM credentials
// (scram.go): --add-config 'SCRAM-SHA-256=[iterations=8192,password=p]'
// salts the password on the client and sends AlterUserScramCredentials,
// --delete-config SCRAM-SHA-256 removes it, and --describe prints
// "SCRAM credential configs for user-principal 'alice' are
// SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096" from
// DescribeUserScramCredentials, as kafka-configs does with --bootstrap-server.
//
// Other entity types (clients, ips, broker-loggers, client-metrics, groups)
// are refused with a message.
package configs
