package storage

import (
	"fmt"
	"strings"

	"kafgo/internal/uuid"
)

// partition.metadata (KIP-516) holds the topic id of a partition directory:
//
//	version: 0
//	topic_id: <22-char base64url>
//
// Kafka writes it without a final newline; both forms are read.

// ReadPartitionMetadata returns the topic id stored in a partition.metadata
// file. A missing file is an error wrapping fs.ErrNotExist.
func ReadPartitionMetadata(path string) (uuid.UUID, error) {
	data, err := readSmallFile(path, 4096)
	if err != nil {
		return uuid.Zero, err
	}
	return parsePartitionMetadata(path, data)
}

func parsePartitionMetadata(path string, data []byte) (uuid.UUID, error) {
	var id uuid.UUID
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
	if len(lines) != 2 {
		return id, fmt.Errorf("storage: %s: %d lines, want 2: %w", path, len(lines), ErrCorruptFile)
	}
	field := func(n int, key string) (string, error) {
		k, v, ok := strings.Cut(strings.TrimSuffix(lines[n], "\r"), ":")
		if !ok || strings.TrimSpace(k) != key {
			return "", fmt.Errorf("storage: %s line %d: want %q, have %q: %w", path, n+1, key+": ...", lines[n], ErrCorruptFile)
		}
		return strings.TrimSpace(v), nil
	}
	v, err := field(0, "version")
	if err != nil {
		return id, err
	}
	if v != "0" {
		return id, fmt.Errorf("storage: %s line 1: version %q, want 0: %w", path, v, ErrCorruptFile)
	}
	t, err := field(1, "topic_id")
	if err != nil {
		return id, err
	}
	var u uuid.UUID
	if u, err = uuid.Parse(t); err != nil {
		return id, fmt.Errorf("storage: %s line 2: %w: %w", path, err, ErrCorruptFile)
	}
	return uuid.UUID(u), nil
}

// WritePartitionMetadata atomically writes partition.metadata for topicID.
func WritePartitionMetadata(path string, topicID uuid.UUID) error {
	return writeFileAtomic(path, formatPartitionMetadata(topicID))
}

func formatPartitionMetadata(topicID uuid.UUID) []byte {
	return []byte("version: 0\ntopic_id: " + uuid.UUID(topicID).String())
}
