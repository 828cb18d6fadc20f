package dumplog

import (
	"errors"

	"kafgo/broker/record"
)

// legacyTimestampType is Kafka's timestampType of a magic 0/1 message:
// magic 0 has none.
func legacyTimestampType(m *record.LegacyMessage) string {
	if m.Magic == 0 {
		return "NoTimestampType"
	}
	return timestampType(m.LogAppendTime())
}

// legacyEntry prints a magic 0/1 message (a wrapper, when compressed) and,
// under deep iteration, the messages a consumer sees in it.
func (d *dumper) legacyEntry(st *logState, e *entry, pos int64) {
	m := &e.msg
	tsType := legacyTimestampType(m)
	d.printf("offset: %d position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
		m.Offset, pos, tsType, m.Timestamp, e.size(), m.Magic, m.Codec(), m.CRC, m.ValidCRC())
	if !m.ValidCRC() {
		d.problemAt(st.path, pos, "Invalid message", errLegacyCRC)
	}
	if !d.o.deep() {
		return
	}
	inner, err := m.Inner(d.o.maxDecompressed())
	if err != nil {
		d.problemAt(st.path, pos, "Undecodable compressed message", atFile(err, pos))
		return
	}
	for i := range inner {
		in := &inner[i]
		d.recordOffset(st, in.Offset)
		prefix := "| "
		if !d.o.SkipRecordMetadata {
			// The closing brace is in Kafka's format string.
			d.printf("| offset: %d %s: %d keySize: %d valueSize: %d isValid: %t crc: %d}",
				in.Offset, tsType, in.Timestamp, size(in.Key), size(in.Value), in.ValidCRC(), in.CRC)
			prefix = " "
		}
		if d.o.printData() {
			d.printContents(st, pos, in.Offset, prefix, in.Key, in.Value)
		}
		d.printf("\n")
		if !in.ValidCRC() && m.Codec() != record.CodecNone {
			d.problemAt(st.path, pos, "Invalid inner message (offset "+itoa(in.Offset)+") in the message", errLegacyCRC)
		}
	}
}

// errLegacyCRC is the reason given for a legacy message whose CRC-32 does
// not match; the record package reports it through ValidCRC, not an error.
var errLegacyCRC = errors.New("the stored CRC-32 does not match the message")
