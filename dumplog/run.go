package dumplog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Exit statuses carried by *Error.
const (
	ExitFailed  = 1 // a file could not be read at all
	ExitCorrupt = 2 // a file is corrupt or an index disagrees with its log
)

// Error reports that the dump found problems. Every problem has already
// been printed on the error stream, so main prints nothing more; the exit
// status tells a script what kind of problem it was.
type Error struct {
	Corrupt []string // files with corrupt data or index mismatches, as given
	Failed  []string // files that could not be read, as given
}

func (e *Error) Error() string {
	var parts []string
	if len(e.Failed) > 0 {
		parts = append(parts, fmt.Sprintf("could not read %s", strings.Join(e.Failed, ", ")))
	}
	if len(e.Corrupt) > 0 {
		parts = append(parts, fmt.Sprintf("problems in %s", strings.Join(e.Corrupt, ", ")))
	}
	return "dumplog: " + strings.Join(parts, "; ")
}

// ExitCode is 1 when a file could not be read (the dump is incomplete),
// otherwise 2 (the files were read and something in them is wrong).
func (e *Error) ExitCode() int {
	if len(e.Failed) > 0 {
		return ExitFailed
	}
	return ExitCorrupt
}

// AlreadyReported tells main the problems were printed as they were found.
func (e *Error) AlreadyReported() bool { return true }

// dumper holds one run's state: the writers, the message parser and the
// reports Kafka prints after all files.
type dumper struct {
	o      Options
	out    *bufio.Writer
	errw   io.Writer
	werr   error // first write error on out or errw
	parser messageParser
	rep    reports

	// Files with problems, in order, each listed once.
	corrupt, failed []string
	// seen dedups problem lines for the same file and byte, which a time
	// index check can meet once per entry.
	seen map[string]bool
}

// Run dumps o.Files to stdout, reporting problems on stderr as Kafka's tool
// does. It returns nil when nothing was wrong, a *Error when some file was
// corrupt or unreadable (already reported), or another error for bad
// options or a failing writer.
func Run(o Options, stdout, stderr io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	d := newDumper(o, stdout, stderr)
	for _, path := range o.Files {
		if path == "" {
			continue // "a,,b": Kafka would fail on the empty name; nothing to dump
		}
		d.dumpFile(path)
		if d.werr != nil {
			return fmt.Errorf("dumplog: write output: %w", d.werr)
		}
	}
	d.rep.print(d)
	d.flush()
	if d.werr != nil {
		return fmt.Errorf("dumplog: write output: %w", d.werr)
	}
	if len(d.corrupt) > 0 || len(d.failed) > 0 {
		return &Error{Corrupt: d.corrupt, Failed: d.failed}
	}
	return nil
}

// newDumper prepares a run; o must be valid.
func newDumper(o Options, stdout, stderr io.Writer) *dumper {
	d := &dumper{o: o, out: bufio.NewWriterSize(stdout, 64<<10), errw: stderr, seen: map[string]bool{}}
	d.parser = stringParser{}
	switch {
	case o.OffsetsDecoder: // Kafka's precedence when both are given
		d.parser = offsetsParser{}
	case o.TxnLogDecoder:
		d.parser = txnLogParser{}
	}
	return d
}

// dumpFile prints one file by its suffix, the part of the name from its
// last dot, as Kafka does.
func (d *dumper) dumpFile(path string) {
	d.printf("Dumping %s\n", path)
	name := filepath.Base(path)
	suffix := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		suffix = name[i:]
	}
	var dump func(string)
	switch suffix {
	case ".log":
		dump = d.dumpLogFile
	case ".index":
		dump = d.dumpIndex
	case ".timeindex":
		dump = d.dumpTimeIndex
	case ".snapshot":
		dump = d.dumpSnapshot
	case ".txnindex":
		dump = d.dumpTxnIndex
	default:
		d.eprintf("Ignoring unknown file %s\n", path)
		return
	}
	// A missing file is named as missing before anything else is said
	// about it (a bad name, or the .log an index is checked against).
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		d.fail(path, errMissing(path))
		return
	}
	dump(path)
}

func (d *dumper) printf(format string, args ...any) {
	if d.werr == nil {
		_, d.werr = fmt.Fprintf(d.out, format, args...)
	}
}

func (d *dumper) flush() {
	if d.werr == nil {
		d.werr = d.out.Flush()
	}
}

// eprintf writes to stderr after flushing stdout, so that on a terminal a
// problem shows up next to the line it concerns.
func (d *dumper) eprintf(format string, args ...any) {
	d.flush()
	if d.werr == nil {
		_, d.werr = fmt.Fprintf(d.errw, format, args...)
	}
}

// fail reports a file that could not be dumped at all.
func (d *dumper) fail(path string, err error) {
	d.eprintf("Cannot dump %s: %v\n", path, err)
	d.failed = appendOnce(d.failed, path)
}

// errMissing is the reason given for a file that does not exist.
func errMissing(path string) error {
	return fmt.Errorf("%s does not exist", path)
}

// markCorrupt records that path has a problem already printed.
func (d *dumper) markCorrupt(path string) { d.corrupt = appendOnce(d.corrupt, path) }

// problemAt reports corrupt data at byte pos of path on stderr as "<what>
// at byte <pos> of <path>: <why>", once per file, position and kind.
func (d *dumper) problemAt(path string, pos int64, what string, why error) {
	d.markCorrupt(path)
	key := fmt.Sprintf("%s\x00%d\x00%s", path, pos, what)
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	d.eprintf("%s at byte %d of %s: %v\n", what, pos, path, why)
}

// problemf reports a problem of path that has no byte position.
func (d *dumper) problemf(path, format string, args ...any) {
	d.markCorrupt(path)
	d.eprintf(format+"\n", args...)
}

func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// absPath is the name Kafka's reports use (File.getAbsolutePath).
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}
