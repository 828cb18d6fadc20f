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
// Entity types other than topics and brokers (users, clients, ips,
// broker-loggers, client-metrics, groups) are refused with a message:
// kafgo has no quotas, loggers or client metrics to configure.
package configs
