package dumplog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"kafgo/broker/record"
	"kafgo/broker/storage"
)

// Entry sizes of the index files, for naming the byte of a bad entry.
const (
	offsetEntryBytes = 8
	timeEntryBytes   = 12
)

// noTimestamp is Kafka's RecordBatch.NO_TIMESTAMP.
const noTimestamp = -1

// segmentLog opens the .log that an index file belongs to, as Kafka's dump
// of an index always does first.
func (d *dumper) segmentLog(path string) (*os.File, int64, bool) {
	logPath := storage.SegmentLogPath(path)
	f, err := os.Open(logPath)
	if errors.Is(err, fs.ErrNotExist) {
		d.fail(path, fmt.Errorf("%w (an index is checked against its segment's log)", errMissing(logPath)))
		return nil, 0, false
	}
	if err != nil {
		d.fail(path, err)
		return nil, 0, false
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		d.fail(path, err)
		return nil, 0, false
	}
	return f, st.Size(), true
}

// dumpIndex dumps a .index file: each entry, checked against the batch it
// names in the .log (Kafka: the last offset of the first batch within
// --max-message-size bytes of the entry's position must be the entry's
// offset).
func (d *dumper) dumpIndex(path string) {
	lf, logSize, ok := d.segmentLog(path)
	if !ok {
		return
	}
	defer lf.Close()
	idx, err := storage.ReadOffsetIndex(path)
	if err != nil {
		d.fail(path, err)
		return
	}
	entries := idx.Entries()
	if len(entries) == 0 {
		d.printf("%s is empty.\n", path)
		return
	}
	if d.o.IndexSanityCheck {
		d.sanity(path, idx.SanityCheck())
		return
	}
	d.partialEntry(path, idx.Size(), offsetEntryBytes)
	abs := absPath(path)
	sr := &segmentReader{r: lf}
	for i, e := range entries {
		// Kafka's dump ends at an entry after the first naming the base
		// offset, which is how a zero entry reads; the zero tail of a
		// preallocated index is already left out of the entries.
		if i > 0 && e.Offset == idx.BaseOffset() {
			return
		}
		window := min(logSize, e.Position+int64(d.o.MaxMessageSize))
		last, err := d.batchAt(sr, e.Position, window)
		if window < logSize && errors.Is(err, record.ErrTruncated) {
			err = fmt.Errorf("dumplog: the batch does not end within --max-message-size (%d bytes): %w", d.o.MaxMessageSize, err)
		}
		switch {
		case errors.Is(err, errRead):
			d.fail(path, err)
			return
		case err != nil:
			d.problemAt(path, int64(i)*offsetEntryBytes, fmt.Sprintf("Unusable index entry (offset %d, position %d)", e.Offset, e.Position), err)
		case last != e.Offset:
			d.rep.indexMismatch.add(abs, e.Offset, last)
			d.markCorrupt(path)
		}
		if !d.o.VerifyIndexOnly {
			d.printf("offset: %d position: %d\n", e.Offset, e.Position)
		}
	}
}

// batchAt returns the last offset of the entry at pos, which must end by
// end.
func (d *dumper) batchAt(sr *segmentReader, pos, end int64) (int64, error) {
	if pos < 0 || pos >= end {
		return 0, fmt.Errorf("dumplog: position %d is outside the %d-byte log", pos, end)
	}
	e, err := sr.at(pos, end)
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("dumplog: no batch at byte %d", pos)
	}
	if err != nil {
		return 0, err
	}
	return e.lastOffset(), nil
}

// partialEntry reports bytes after an index file's last whole entry, which
// Kafka's dump skips silently (and the broker's sanity check rejects).
func (d *dumper) partialEntry(path string, size, entrySize int64) {
	if n := size % entrySize; n != 0 {
		d.problemAt(path, size-n, "Partial index entry", fmt.Errorf("%d bytes, an entry has %d", n, entrySize))
	}
}

// sanity prints the result of the broker's startup check on an index.
func (d *dumper) sanity(path string, err error) {
	if err != nil {
		d.problemf(path, "%s failed sanity check: %v", path, err)
		return
	}
	d.printf("%s passed sanity check.\n", path)
}

// siblingPath is the file of the same segment with another suffix.
func siblingPath(path, ext string) string {
	return strings.TrimSuffix(storage.SegmentLogPath(path), ".log") + ext
}

// dumpTimeIndex dumps a .timeindex file with Kafka's checks: each entry's
// offset must be the last offset of a batch (found from the offset index),
// that batch's largest record timestamp must be the entry's, and entry
// timestamps must increase.
func (d *dumper) dumpTimeIndex(path string) {
	lf, logSize, ok := d.segmentLog(path)
	if !ok {
		return
	}
	defer lf.Close()
	// Without its .index the scan starts at the segment's first batch.
	offIdx, err := storage.ReadOffsetIndex(siblingPath(path, ".index"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.fail(path, err)
		return
	}
	tidx, err := storage.ReadTimeIndex(path)
	if err != nil {
		d.fail(path, err)
		return
	}
	if d.o.IndexSanityCheck {
		d.sanity(path, tidx.SanityCheck())
		return
	}
	d.partialEntry(path, tidx.Size(), timeEntryBytes)
	abs := absPath(path)
	sr := &segmentReader{r: lf}
	prevTs := int64(noTimestamp)
	for i, e := range tidx.Entries() {
		if i > 0 && e.Offset == tidx.BaseOffset() {
			return
		}
		pos := int64(0)
		if offIdx != nil {
			pos = offIdx.Lookup(e.Offset).Position
		}
		where := fmt.Sprintf("Time index entry (timestamp %d, offset %d)", e.Timestamp, e.Offset)
		found, err := d.findBatch(sr, pos, logSize, e.Offset)
		switch {
		case errors.Is(err, errRead):
			d.fail(path, err)
			return
		case err != nil:
			d.problemAt(path, int64(i)*timeEntryBytes, where, err)
			d.rep.notFound.add(abs, e.Offset, -1)
		case found == nil:
			d.rep.notFound.add(abs, e.Offset, -1)
			d.markCorrupt(path)
		case found.lastOffset() != e.Offset:
			d.rep.notFound.add(abs, e.Offset, found.lastOffset())
			d.markCorrupt(path)
		default:
			maxTs, err := d.maxTimestamp(found)
			if err != nil {
				d.problemAt(path, int64(i)*timeEntryBytes, where+": the batch it names", err)
				break
			}
			if maxTs != e.Timestamp {
				d.rep.timeMismatch.add(abs, e.Timestamp, maxTs)
				d.markCorrupt(path)
			}
			if prevTs >= e.Timestamp {
				d.rep.outOfOrder.add(abs, e.Timestamp, prevTs)
				d.markCorrupt(path)
			}
		}
		if !d.o.VerifyIndexOnly {
			d.printf("timestamp: %d offset: %d\n", e.Timestamp, e.Offset)
		}
		prevTs = e.Timestamp
	}
}

// findBatch scans from pos for the first entry whose last offset is at or
// past target; nil when the log ends first. An entry that cannot be framed
// ends the scan with its error (a torn tail only ends it).
func (d *dumper) findBatch(sr *segmentReader, pos, end, target int64) (*entry, error) {
	if pos < 0 || pos > end {
		return nil, fmt.Errorf("dumplog: the offset index points at byte %d, outside the %d-byte log", pos, end)
	}
	for {
		e, err := sr.at(pos, end)
		if errors.Is(err, io.EOF) || errors.Is(err, record.ErrTruncated) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if e.lastOffset() >= target {
			return &e, nil
		}
		pos += e.size()
	}
}

// maxTimestamp is the largest record timestamp of an entry, NO_TIMESTAMP
// when it has none, decoding compressed records as Kafka's check does.
func (d *dumper) maxTimestamp(e *entry) (int64, error) {
	maxTs := int64(noTimestamp)
	if e.legacy {
		inner, err := e.msg.Inner(d.o.maxDecompressed())
		if err != nil {
			return 0, atFile(err, e.pos)
		}
		for i := range inner {
			maxTs = max(maxTs, inner[i].Timestamp)
		}
		return maxTs, nil
	}
	it, err := openRecords(e.raw, record.VerifyCRC(e.raw) != nil, d.o.maxDecompressed())
	if err != nil {
		return 0, atFile(err, e.pos)
	}
	for it.Next() {
		maxTs = max(maxTs, e.batch.TimestampOf(it.Record()))
	}
	if err := it.Err(); err != nil {
		return 0, atFile(err, e.pos)
	}
	return maxTs, nil
}
