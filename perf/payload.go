package perf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// payloads chooses each record's value.
type payloads struct {
	fixed     []byte   // --record-size: one random payload for every record
	list      [][]byte // --payload-file: a random entry per record
	monotonic bool     // --payload-monotonic: the record's index in decimal
	rng       *rand.Rand
}

func (p *payloads) next(i int64) []byte {
	switch {
	case p.monotonic:
		return strconv.AppendInt(nil, i, 10)
	case p.list != nil:
		return p.list[p.rng.IntN(len(p.list))]
	}
	return p.fixed
}

// largest is the largest value next returns for n records.
func (p *payloads) largest(n int64) []byte {
	switch {
	case p.monotonic:
		return strconv.AppendInt(nil, max(n-1, 0), 10)
	case p.list != nil:
		var big []byte
		for _, v := range p.list {
			if len(v) > len(big) {
				big = v
			}
		}
		return big
	}
	return p.fixed
}

// randomPayload is Kafka's: uppercase ASCII letters.
func randomPayload(rng *rand.Rand, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte('A' + rng.IntN(26))
	}
	return b
}

// readPayloadFile splits a payload file by delim, dropping empty entries,
// and reports what it read on out as Kafka does.
func readPayloadFile(path, delim string, out io.Writer) ([][]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("perf: %w", err)
	}
	fmt.Fprintf(out, "Reading payloads from: %s\n", abs)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("perf: reading payload file: %w", err)
	}
	// Command lines spell the delimiter with backslash escapes (Kafka's
	// "\n"); unset, it is a newline, Kafka's default.
	delim = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\r`, "\r").Replace(delim)
	if delim == "" {
		delim = "\n"
	}
	var list [][]byte
	for _, p := range bytes.Split(data, []byte(delim)) {
		if len(p) > 0 {
			list = append(list, p)
		}
	}
	if len(list) == 0 {
		return nil, errors.New("File does not contain any payloads")
	}
	fmt.Fprintf(out, "Number of messages read: %d\n", len(list))
	return list, nil
}
