package dumplog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const expectedDir = "../testdata/dumplog/expected"

// runCommand runs the cobra command as main does (silenced usage, "Error:"
// for errors not already reported) and returns stdout, stderr and the
// exit status main would use.
func runCommand(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := NewCommand()
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	cmd.SetArgs(args)
	err := cmd.Execute()
	code := 0
	if err != nil {
		var reported interface{ AlreadyReported() bool }
		if !errors.As(err, &reported) || !reported.AlreadyReported() {
			fmt.Fprintln(&errOut, "Error:", err)
		}
		code = 1
		var coded interface{ ExitCode() int }
		if errors.As(err, &coded) {
			code = coded.ExitCode()
		}
	}
	return out.String(), errOut.String(), code
}

// seg names a golden segment file: "plain/0.log" is
// plain/00000000000000000000.log (base offsets are written short).
func seg(short string) string {
	dir, file := filepath.Split(short)
	base, ext, ok := strings.Cut(file, ".")
	if !ok || strings.Trim(base, "0123456789") != "" {
		return filepath.Join(segmentsDir, short)
	}
	return filepath.Join(segmentsDir, dir, fmt.Sprintf("%020s", base)+"."+ext)
}

func files(short ...string) string {
	var out []string
	for _, s := range short {
		out = append(out, seg(s))
	}
	return "--files=" + strings.Join(out, ",")
}

// goldenCases run the command on the golden segments; each output is
// compared with testdata/dumplog/expected/<name>.txt.
var goldenCases = []struct {
	name string
	args []string
	code int
}{
	// .log dumps, every mode.
	{"log-shallow", []string{files("plain/0.log", "plain/15.log")}, 0},
	{"log-deep", []string{"--deep-iteration", files("plain/0.log", "plain/15.log")}, 0},
	{"log-print-data", []string{"--print-data-log", files("plain/0.log", "plain/15.log")}, 0},
	{"log-skip-metadata", []string{"--print-data-log", "--skip-record-metadata", files("plain/15.log")}, 0},
	{"log-skip-metadata-deep", []string{"--deep-iteration", "--skip-record-metadata", files("plain/15.log")}, 0},
	{"log-decoder-class", []string{"--value-decoder-class", "--key-decoder-class=kafka.serializer.StringDecoder", files("plain/15.log")}, 0},
	{"log-max-bytes", []string{"--max-bytes", "300", "--deep-iteration", files("plain/0.log")}, 0},
	{"log-empty", []string{files("empty/100.log")}, 0},
	{"legacy-shallow", []string{files("legacy/0.log")}, 0},
	{"legacy-print-data", []string{"--print-data-log", files("legacy/0.log")}, 0},
	{"offsets-decoder", []string{"--offsets-decoder", files("offsets/0.log")}, 0},

	// Indexes and snapshots of a healthy log.
	{"index-dump", []string{files("plain/0.index", "plain/0.timeindex", "plain/15.index", "plain/15.timeindex")}, 0},
	{"index-verify", []string{"--verify-index-only", files("plain/0.index", "plain/0.timeindex", "plain/15.index", "plain/15.timeindex", "offsets/0.index", "offsets/0.timeindex")}, 0},
	{"index-sanity", []string{"--index-sanity-check", files("plain/0.index", "plain/0.timeindex", "plain/15.index", "plain/15.timeindex")}, 0},
	{"index-empty", []string{"--index-sanity-check", files("empty/100.index")}, 0},
	{"timeindex-without-index", []string{files("noindex/0.timeindex")}, 0},
	{"index-prealloc", []string{files("prealloc/0.index", "prealloc/0.timeindex")}, 0},
	{"index-sanity-prealloc", []string{"--index-sanity-check", files("prealloc/0.index", "prealloc/0.timeindex")}, 0},
	// Copied from a log still open: the second segment is the active one,
	// its indexes preallocated with a zero tail; "fresh" has one batch, too
	// few bytes for an index entry.
	{"live-dump", []string{files("live/0.index", "live/0.timeindex", "live/17.index", "live/17.timeindex")}, 0},
	{"live-verify", []string{"--verify-index-only", files("live/0.index", "live/0.timeindex", "live/17.index", "live/17.timeindex")}, 0},
	{"live-sanity", []string{"--index-sanity-check", files("live/0.index", "live/0.timeindex", "live/17.index", "live/17.timeindex")}, 0},
	{"live-shallow", []string{files("live/17.log")}, 0},
	{"fresh-dump", []string{files("fresh/0.index", "fresh/0.timeindex")}, 0},
	{"fresh-verify", []string{"--verify-index-only", files("fresh/0.index", "fresh/0.timeindex")}, 0},
	{"fresh-sanity", []string{"--index-sanity-check", files("fresh/0.index", "fresh/0.timeindex")}, 0},
	{"snapshot", []string{files("plain/15.snapshot", "plain/23.snapshot", "offsets/13.snapshot")}, 0},
	{"txnindex", []string{files("txn/0.txnindex")}, 0},
	{"unknown-files", []string{files("plain/leader-epoch-checkpoint", "plain/partition.metadata", "plain/0.log.deleted")}, 0},

	// Corrupt logs: dumped as far as readable, exit status 2.
	{"torn-shallow", []string{files("torn/0.log")}, 2},
	{"torn-print-data", []string{"--print-data-log", files("torn/0.log")}, 2},
	{"torn-verify", []string{"--verify-index-only", files("torn/0.index", "torn/0.timeindex")}, 2},
	{"crc-shallow", []string{files("crc/0.log")}, 2},
	{"crc-print-data", []string{"--print-data-log", files("crc/0.log")}, 2},
	{"bad-magic", []string{"--deep-iteration", files("badmagic/0.log")}, 2},

	// Indexes that disagree with the log.
	{"wrong-index-dump", []string{files("wrongindex/0.index", "wrongindex/0.timeindex")}, 2},
	{"wrong-index-verify", []string{"--verify-index-only", files("wrongindex/0.index", "wrongindex/0.timeindex")}, 2},
	{"index-sanity-failures", []string{"--index-sanity-check", files("badindex/0.index", "badindex/0.timeindex", "wrongindex/0.timeindex")}, 2},
	{"index-bad-length-dump", []string{files("badindex/0.index", "badindex/0.timeindex")}, 2},
	{"index-max-message-size", []string{"--verify-index-only", "--max-message-size", "100", files("plain/0.index")}, 2},
	{"txnindex-corrupt", []string{files("txn/50.txnindex", "txn/60.txnindex")}, 2},

	// Files that cannot be read, and usage errors: exit status 1.
	{"missing-files", []string{files("nope/0.log", "nope/0.index", "nope/0.timeindex", "nope/0.snapshot", "empty/100.timeindex", "nope/0.txnindex", "nope/not-a-segment.log"), "--verify-index-only"}, 1},
	{"missing-log", []string{files("nolog/0.index")}, 1},
	{"bad-name", []string{files("badname/not-a-segment.log")}, 1},
	{"mixed-failures", []string{files("torn/0.log", "nope/0.log")}, 1},
	{"no-files", nil, 1},
	{"bad-decoder", []string{"--key-decoder-class=com.example.AvroDecoder", files("plain/0.log")}, 1},
	{"bad-max-message-size", []string{"--max-message-size", "0", files("plain/0.index")}, 1},
	{"stray-argument", []string{files("plain/0.log"), "extra"}, 1},
}

func TestGolden(t *testing.T) {
	abs, err := filepath.Abs(segmentsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCommand(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d\nstderr:\n%s", code, tc.code, stderr)
			}
			clean := func(s string) string {
				s = strings.ReplaceAll(s, abs, "$ABS")
				return strings.ReplaceAll(s, segmentsDir, "$SEG")
			}
			got := fmt.Sprintf("# kafgo dump-log-segments %s\n# exit status: %d\n## stdout\n%s## stderr\n%s",
				clean(strings.Join(tc.args, " ")), code, clean(stdout), clean(stderr))
			path := filepath.Join(expectedDir, tc.name+".txt")
			if *update {
				if err := writeFile(path, []byte(got)); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}
