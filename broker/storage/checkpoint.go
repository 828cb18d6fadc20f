package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"kafgo/broker/partid"
	"kafgo/broker/storage/vfs"
)

// maxCheckpointBytes bounds what we read of a checkpoint file: a log dir
// with a million partitions stays well below it.
const maxCheckpointBytes = 256 << 20

// checkpointVersion is the only version of Kafka's text checkpoints.
const checkpointVersion = 0

// parseCheckpoint splits a Kafka checkpoint file (CheckpointFile.java):
// a version line, a count line, then exactly count entry lines of
// fieldsPerLine space-separated fields. Errors name the file and line.
func parseCheckpoint(path string, data []byte, fieldsPerLine int) ([][]string, error) {
	lines := strings.Split(string(data), "\n")
	// The final newline of the file yields one empty trailing element.
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	if len(lines) < 2 {
		return nil, fmt.Errorf("storage: %s: %d lines, a checkpoint needs a version and a count: %w", path, len(lines), ErrCorruptFile)
	}
	v, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || v != checkpointVersion {
		return nil, fmt.Errorf("storage: %s line 1: version %q, want %d: %w", path, lines[0], checkpointVersion, ErrCorruptFile)
	}
	count, err := strconv.Atoi(strings.TrimSpace(lines[1]))
	if err != nil || count < 0 {
		return nil, fmt.Errorf("storage: %s line 2: bad entry count %q: %w", path, lines[1], ErrCorruptFile)
	}
	// Check the count against the lines present before allocating for it.
	if count != len(lines)-2 {
		return nil, fmt.Errorf("storage: %s line 2: expected %d entries, found %d: %w", path, count, len(lines)-2, ErrCorruptFile)
	}
	out := make([][]string, count)
	for i := range count {
		f := strings.Fields(lines[i+2])
		if len(f) != fieldsPerLine {
			return nil, fmt.Errorf("storage: %s line %d: %d fields, want %d: %w", path, i+3, len(f), fieldsPerLine, ErrCorruptFile)
		}
		out[i] = f
	}
	return out, nil
}

func formatCheckpoint(lines []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d\n%d\n", checkpointVersion, len(lines))
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ReadOffsetCheckpoint reads a recovery-point-offset-checkpoint,
// replication-offset-checkpoint or log-start-offset-checkpoint file
// (entries "topic partition offset"). A missing file is an empty map, as
// Kafka treats it.
func ReadOffsetCheckpoint(path string) (map[partid.TopicPartition]int64, error) {
	return readOffsetCheckpoint(vfs.Default, path)
}

func readOffsetCheckpoint(fsys vfs.FS, path string) (map[partid.TopicPartition]int64, error) {
	data, err := readSmallFile(fsys, path, maxCheckpointBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[partid.TopicPartition]int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseOffsetCheckpoint(path, data)
}

func parseOffsetCheckpoint(path string, data []byte) (map[partid.TopicPartition]int64, error) {
	rows, err := parseCheckpoint(path, data, 3)
	if err != nil {
		return nil, err
	}
	out := make(map[partid.TopicPartition]int64, len(rows))
	for i, f := range rows {
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		off, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 {
			return nil, fmt.Errorf("storage: %s line %d: bad partition or offset in %q: %w", path, i+3, strings.Join(f, " "), ErrCorruptFile)
		}
		if err := ValidateTopicName(f[0]); err != nil {
			return nil, fmt.Errorf("storage: %s line %d: %w: %w", path, i+3, err, ErrCorruptFile)
		}
		out[partid.TopicPartition{Topic: f[0], Partition: int32(p)}] = off
	}
	return out, nil
}

// WriteOffsetCheckpoint atomically writes an offset checkpoint file. Entries
// are sorted by topic and partition so the file is deterministic.
func WriteOffsetCheckpoint(path string, offsets map[partid.TopicPartition]int64) error {
	return writeOffsetCheckpoint(vfs.Default, path, offsets)
}

func writeOffsetCheckpoint(fsys vfs.FS, path string, offsets map[partid.TopicPartition]int64) error {
	return writeFileAtomic(fsys, path, formatOffsetCheckpoint(offsets))
}

func formatOffsetCheckpoint(offsets map[partid.TopicPartition]int64) []byte {
	tps := make([]partid.TopicPartition, 0, len(offsets))
	for tp := range offsets {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(a, b partid.TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition) - int(b.Partition)
	})
	lines := make([]string, len(tps))
	for i, tp := range tps {
		lines[i] = fmt.Sprintf("%s %d %d", tp.Topic, tp.Partition, offsets[tp])
	}
	return formatCheckpoint(lines)
}

// ReadLeaderEpochCheckpoint reads a leader-epoch-checkpoint file (entries
// "epoch startOffset"). A missing file has no entries.
func ReadLeaderEpochCheckpoint(path string) ([]EpochEntry, error) {
	return readLeaderEpochCheckpoint(vfs.Default, path)
}

func readLeaderEpochCheckpoint(fsys vfs.FS, path string) ([]EpochEntry, error) {
	data, err := readSmallFile(fsys, path, maxCheckpointBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseLeaderEpochCheckpoint(path, data)
}

func parseLeaderEpochCheckpoint(path string, data []byte) ([]EpochEntry, error) {
	rows, err := parseCheckpoint(path, data, 2)
	if err != nil {
		return nil, err
	}
	out := make([]EpochEntry, len(rows))
	for i, f := range rows {
		e, err1 := strconv.ParseInt(f[0], 10, 32)
		off, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("storage: %s line %d: bad epoch entry %q: %w", path, i+3, strings.Join(f, " "), ErrCorruptFile)
		}
		out[i] = EpochEntry{Epoch: int32(e), StartOffset: off}
	}
	return out, nil
}

// WriteLeaderEpochCheckpoint atomically writes a leader-epoch-checkpoint.
func WriteLeaderEpochCheckpoint(path string, entries []EpochEntry) error {
	return writeFileAtomic(vfs.Default, path, formatLeaderEpochCheckpoint(entries))
}

func formatLeaderEpochCheckpoint(entries []EpochEntry) []byte {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = fmt.Sprintf("%d %d", e.Epoch, e.StartOffset)
	}
	return formatCheckpoint(lines)
}
