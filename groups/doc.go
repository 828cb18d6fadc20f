// Package groups implements `kafgo groups`, the client side of Kafka's
// kafka-consumer-groups.sh: list, describe (offsets, members, state), reset
// offsets, delete groups and delete committed offsets, over the Kafka
// protocol (ListGroups, DescribeGroups, OffsetFetch, ListOffsets,
// OffsetCommit, DeleteGroups, OffsetDelete).
//
// Tables follow ConsumerGroupCommand's printf layouts exactly: each row is
// preceded by a newline, columns are left-justified, name columns are as
// wide as their longest value but at least 15 (GROUP, TOPIC, CONSUMER-ID,
// HOST), PARTITION is 10 wide and the offset columns 15; a missing value
// prints "-". The describe table for offsets:
//
//	\nGROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
//
// State messages ("Consumer group 'g' has no active members.", "... is
// rebalancing.") go to the error stream, as in Kafka; "does not exist" is
// printed there as an error line.
package groups
