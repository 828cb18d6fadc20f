// Package console implements kafgo's console producer and consumer, the
// counterparts of kafka-console-producer.sh and kafka-console-consumer.sh.
//
// The producer reads one record per line. With parse.headers and
// parse.key (Kafka's LineMessageReader properties) a line is
//
//	<headers><headers.delimiter><key><key.separator><value>
//
// where headers are <k><headers.key.separator><v> pairs joined by
// headers.separator; defaults are "\t", "\t", "," and ":". A field equal to
// null.marker (when set) is sent as null. Keyed records are placed by
// murmur2(key) mod partitions, as the Java client does.
//
// The consumer prints each record with Kafka's DefaultMessageFormatter
// layout: only the enabled fields, in the order
//
//	<type>:<ts> Partition:<p> Offset:<o> <headers> <key> <value>
//
// joined by key.separator (default "\t") and ended by line.separator
// (default "\n"); a missing timestamp prints NO_TIMESTAMP, a record without
// headers NO_HEADERS, and a null key or value null.literal ("null"). On exit
// it reports "Processed a total of N messages" on the error stream.
package console
