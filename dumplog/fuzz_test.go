package dumplog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addGoldenLogs seeds a fuzz target with every golden .log file.
func addGoldenLogs(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join(segmentsDir, "*", "*.log"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no golden logs under %s (%v)", segmentsDir, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, strings.Contains(p, "offsets"))
	}
}

// FuzzDumpLog dumps arbitrary bytes as a .log with every record printed,
// through either parser: it must never panic, and a dump that reports no
// problem must have accounted for every byte.
func FuzzDumpLog(f *testing.F) {
	addGoldenLogs(f)
	f.Add([]byte{}, false)
	f.Add(make([]byte, 61), true)
	f.Fuzz(func(t *testing.T, data []byte, offsets bool) {
		o := DefaultOptions()
		o.Files = []string{segName + ".log"}
		o.PrintDataLog = true
		o.OffsetsDecoder = offsets
		o.MaxDecompressed = 1 << 20 // keep each input cheap
		var out, errOut bytes.Buffer
		d := newDumper(o, &out, &errOut)
		d.dumpLog(segName+".log", bytes.NewReader(data), int64(len(data)))
		d.rep.print(d)
		d.flush()
		if d.werr != nil {
			t.Fatal(d.werr)
		}
		if len(d.failed) != 0 {
			t.Fatalf("reading from memory failed: %s", errOut.String())
		}
		if len(d.corrupt) == 0 && strings.Contains(out.String(), "invalid bytes") {
			t.Fatalf("trailing bytes reported without a problem:\n%s", out.String())
		}
	})
}

// FuzzOffsetsParser decodes arbitrary __consumer_offsets keys and values.
func FuzzOffsetsParser(f *testing.F) {
	steps, err := offsetsSteps()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range steps {
		if s.batch == nil {
			continue
		}
		for _, r := range s.batch.recs {
			f.Add(r.key, r.value, r.value == nil)
		}
	}
	f.Fuzz(func(t *testing.T, key, value []byte, tombstone bool) {
		if tombstone {
			value = nil
		}
		c, err := offsetsParser{}.parse(key, value)
		if err == nil && !c.hasKey {
			t.Fatalf("decoded without a key: %+v", c)
		}
		if c.hasPayload && !c.hasKey {
			t.Fatalf("payload without a key: %+v", c)
		}
		_, _ = io.Discard.Write([]byte(c.key + c.payload))
	})
}
