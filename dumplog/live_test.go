package dumplog

import (
	"path/filepath"
	"strings"
	"testing"

	"kafgo/broker/record"
	"kafgo/broker/storage"
)

// openLiveLog writes a partition with the broker's storage and leaves it
// open, so its last segment is the active one: indexes mapped and
// preallocated to segment.index.bytes, a zero tail after the entries.
func openLiveLog(t *testing.T, steps []step) (dir string, l *storage.Log) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "live-0")
	l, err := runSteps(dir, goldenLogConfig(), 3, steps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return dir, l
}

// liveSteps: two segments, the second left active with index entries. The
// batches carry their largest timestamp on an inner record, tie it across
// batches, and mix codecs and LogAppendTime, the cases where a time index
// entry could name something other than a batch's last offset.
func liveSteps() []step {
	t := baseTime
	inner := func(ts ...int64) []rec {
		var out []rec
		for i, x := range ts {
			out = append(out, r(x, "k", strings.Repeat("v", 20+i)))
		}
		return out
	}
	var steps []step
	for seg := int64(0); seg < 2; seg++ {
		o := seg * 1000
		steps = append(steps,
			batchStep(batchSpec{recs: inner(t+o, t+o+50, t+o+10)}),
			batchStep(batchSpec{recs: inner(t+o+60, t+o+70, t+o+70, t+o+65)}),
			batchStep(batchSpec{codec: record.CodecGzip, recs: inner(t+o+80, t+o+200, t+o+150)}),
			batchStep(batchSpec{codec: record.CodecLZ4, recs: inner(t+o+200, t+o+200)}),
			batchStep(batchSpec{logAppendTime: t + o + 500, recs: inner(t+o+1, t+o+2)}),
			batchStep(batchSpec{recs: inner(t+o+600, t+o+610, t+o+605)}),
		)
		if seg == 0 {
			steps = append(steps, step{roll: true})
		}
	}
	return steps
}

// dumpMustPass runs the tool in the given mode and wants exit 0 and nothing
// on stderr.
func dumpMustPass(t *testing.T, files []string, mode ...string) string {
	t.Helper()
	args := append(append([]string(nil), mode...), "--files="+strings.Join(files, ","))
	stdout, stderr, code := runCommand(t, args...)
	if code != 0 || stderr != "" {
		t.Errorf("dump-log-segments %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(mode, " "), code, stdout, stderr)
	}
	return stdout
}

// The indexes of a healthy log, written by the broker's storage, pass every
// check of the tool: the sealed segment and the open, active one (whose
// preallocated zero tail is not entries).
func TestDumpIndexesOfOpenLog(t *testing.T) {
	dir, l := openLiveLog(t, liveSteps())
	if l.NumSegments() != 2 {
		t.Fatalf("%d segments, want 2", l.NumSegments())
	}
	var files []string
	for _, ext := range []string{".index", ".timeindex"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
		files = append(files, m...)
	}
	if len(files) != 4 {
		t.Fatalf("index files %v", files)
	}
	out := dumpMustPass(t, files)
	active := files[1]
	if !strings.Contains(out, "Dumping "+active+"\noffset: ") {
		t.Errorf("the active segment's index printed no entries:\n%s", out)
	}
	if strings.Contains(out, "offset: 1000 position: 0\n") || strings.Contains(out, "timestamp: 0 ") {
		t.Errorf("the zero tail was printed as entries:\n%s", out)
	}
	dumpMustPass(t, files, "--verify-index-only")
	out = dumpMustPass(t, files, "--index-sanity-check")
	if n := strings.Count(out, "passed sanity check."); n != 4 {
		t.Errorf("%d files passed the sanity check, want 4:\n%s", n, out)
	}
}

// An active segment too small for an index entry has preallocated, all-zero
// index files: no entries, no mismatch.
func TestDumpEmptyIndexesOfOpenLog(t *testing.T) {
	dir, _ := openLiveLog(t, liveSteps()[:1])
	files := []string{
		filepath.Join(dir, segName+".index"),
		filepath.Join(dir, segName+".timeindex"),
	}
	out := dumpMustPass(t, files)
	if !strings.Contains(out, files[0]+" is empty.") || strings.Contains(out, "timestamp: ") {
		t.Errorf("empty live indexes:\n%s", out)
	}
	dumpMustPass(t, files, "--verify-index-only")
	dumpMustPass(t, files, "--index-sanity-check")
}
