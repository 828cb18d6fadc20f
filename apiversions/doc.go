// Package apiversions is `kafgo broker-api-versions`, Kafka's
// kafka-broker-api-versions.sh (BrokerApiVersionsCommand with
// NodeApiVersions.toString(true), Kafka 3.9): for every broker of the
// cluster, the API versions it serves (ApiVersions) set against those the
// Java client of Kafka 3.9 speaks:
//
//	127.0.0.1:9092 (id: 1 rack: null) -> (
//		Produce(0): 0 to 11 [usable: 11],
//		Fetch(1): 0 to 12 [usable: 12],
//		...
//		DescribeTopicPartitions(75): UNSUPPORTED,
//		...
//	)
//
// One entry per API key in ascending order: every key the broker serves
// ("N" alone when its oldest and latest versions are equal; "[usable: V]",
// V the latest version both sides speak, or "[unusable: node too new]" /
// "[unusable: node too old]"; "UNKNOWN(key): a to b" for a key the client
// does not know), and "Name(key): UNSUPPORTED" for each client API the
// broker lacks. A broker that does not answer prints
// "host:port (id: 1 rack: null) -> ERROR: <exception>". Brokers are listed
// in the order of the Metadata answer.
package apiversions
