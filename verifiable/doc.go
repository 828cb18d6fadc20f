// Package verifiable is `kafgo verifiable-producer` and `kafgo
// verifiable-consumer`, Kafka's kafka-verifiable-producer.sh and
// kafka-verifiable-consumer.sh (VerifiableProducer, VerifiableConsumer,
// Kafka 3.9): a producer of increasing integers and a consumer group
// member that print every event, one JSON object per line on standard
// output, for test harnesses (Kafka's own system tests, ducktape) to read.
//
// Each event starts with "timestamp" (ms) and "name"; the other fields
// follow in the order Kafka's Jackson-serialized event classes give them:
//
//	{"timestamp":..,"name":"startup_complete"}
//	{"timestamp":..,"name":"producer_send_success","key":null,"value":"0","offset":0,"topic":"t","partition":0}
//	{"timestamp":..,"name":"producer_send_error","topic":"t","key":null,"value":"1","exception":"class org.apache.kafka.common.errors.NotEnoughReplicasException","message":"..."}
//	{"timestamp":..,"name":"shutdown_complete"}
//	{"timestamp":..,"name":"tool_data","sent":2,"acked":1,"target_throughput":-1,"avg_throughput":12.5}
//
//	{"timestamp":..,"name":"partitions_assigned","partitions":[{"topic":"t","partition":0}]}
//	{"timestamp":..,"name":"partitions_revoked","partitions":[...]}
//	{"timestamp":..,"name":"records_consumed","count":3,"partitions":[{"topic":"t","partition":0,"count":3,"minOffset":0,"maxOffset":2}]}
//	{"timestamp":..,"name":"record_data","key":null,"value":"0","topic":"t","partition":0,"offset":0}      (--verbose)
//	{"timestamp":..,"name":"offsets_committed","offsets":[{"topic":"t","partition":0,"offset":3}],"success":true}
//	{"timestamp":..,"name":"offsets_committed","offsets":[...],"error":"<message>","success":false}
//
// The producer sends values "N" (or "P.N" with --value-prefix P) with no
// key (or keys "0".."K-1" cycling with --repeating-keys K), never retrying
// a failed send (retries=0, so not idempotent); it ends after
// --max-messages, or when stopped (SIGINT/SIGTERM), flushing what it sent
// and printing shutdown_complete and tool_data. The consumer commits
// synchronously after each batch unless --enable-autocommit, and ends after
// --max-messages or when stopped. Where Kafka lists a batch's partitions in
// HashMap order kafgo sorts them by topic, then partition.
package verifiable
