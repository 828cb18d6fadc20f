package dumplog

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"kafgo/broker/record"
	"kafgo/broker/storage"
)

// dumpLogFile dumps a .log file.
func (d *dumper) dumpLogFile(path string) {
	base, ok := storage.SegmentBaseOffset(path)
	if !ok {
		d.fail(path, errors.New("the file name does not start with a base offset"))
		return
	}
	f, err := os.Open(path)
	if err != nil {
		d.fail(path, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		d.fail(path, err)
		return
	}
	d.printf("Starting offset: %d\n", base)
	d.dumpLog(path, f, st.Size())
}

// logState is what a .log dump carries across batches.
type logState struct {
	path       string // as given
	abs        string // for Kafka's reports
	lastOffset int64  // previous record's offset in deep iteration, -1 before the first
}

// dumpLog prints the entries of a segment of size bytes read from r, as
// Kafka's dumpLog does, and reports where and why it stopped early.
func (d *dumper) dumpLog(path string, r io.ReaderAt, size int64) {
	st := &logState{path: path, abs: absPath(path), lastOffset: -1}
	// --max-bytes reads only a prefix (Kafka's slice(0, maxBytes)); an
	// entry crossing its end is not shown and is not an error.
	end := min(size, int64(d.o.MaxBytes))
	sr := &segmentReader{r: r}
	var valid int64
	for d.werr == nil {
		e, err := sr.at(valid, end)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if end < size && errors.Is(err, record.ErrTruncated) {
				return
			}
			if errors.Is(err, errRead) {
				d.fail(path, err)
				return
			}
			d.printf("Found %d invalid bytes at the end of %s\n", end-valid, filepath.Base(path))
			d.problemAt(path, valid, "Stopped", err)
			return
		}
		if e.legacy {
			d.legacyEntry(st, &e, valid)
		} else {
			d.batchEntry(st, &e, valid)
		}
		valid += e.size()
	}
}

// recordOffset feeds Kafka's non-consecutive offsets report.
func (d *dumper) recordOffset(st *logState, offset int64) {
	if st.lastOffset != -1 && offset != st.lastOffset+1 {
		d.rep.nonConsecutive.add(st.abs, st.lastOffset, offset)
	}
	st.lastOffset = offset
}

// printContents prints a record's key and payload through the parser, after
// prefix ("| " when record metadata was skipped, else " "). It reports a
// record the parser cannot decode.
func (d *dumper) printContents(st *logState, batchPos, offset int64, prefix string, key, value []byte) {
	c, err := d.parser.parse(key, value)
	if c.hasKey {
		d.printf("%skey: %s", prefix, c.key)
	}
	if c.hasPayload {
		d.printf(" payload: %s", c.payload)
	}
	if err != nil {
		d.problemAt(st.path, batchPos, "Undecodable record (offset "+itoa(offset)+") in the batch", err)
	}
}
