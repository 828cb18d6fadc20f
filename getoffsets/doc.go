// Package getoffsets is `kafgo get-offsets`, Kafka's kafka-get-offsets.sh
// (GetOffsetShell, Kafka 3.9): the offsets of partitions at a time
// (ListOffsets), one line per partition:
//
//	topic:partition:offset
//
// --time is latest (-1, the default: the high watermark), earliest (-2: the
// log start offset), max-timestamp (-3: the offset of the record with the
// largest timestamp), earliest-local (-4), latest-tiered (-5), or a
// timestamp in ms (the first offset whose record time is at or after it).
// Partitions without such an offset (a timestamp after the last record) are
// left out. The partitions are chosen by --topic (a Java regex matched
// against the whole name; default every topic) and --partitions (ids), or
// by --topic-partitions, a comma-separated list of patterns
// "topic-regex[:partition]" where the partition part is N, N-M (M
// exclusive), N- or -M. Lines are sorted by the string "topic-partition",
// as Kafka's TreeMap sorts them (t-10 before t-2).
//
// Failures are printed "Error occurred: <message>" on standard error
// (exit status 1); a partition whose offset could not be read is skipped
// with "Skip getting offsets for topic-partition t-0 due to error: ...".
package getoffsets
