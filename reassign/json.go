package reassign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// anyLogDir is the log_dirs entry that leaves the directory to the broker.
const anyLogDir = "any"

// TopicPartition names a partition; it prints as Kafka's TopicPartition
// does, "topic-partition".
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (p TopicPartition) String() string { return p.Topic + "-" + strconv.Itoa(int(p.Partition)) }

func compareTP(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}

// Move is one entry of a reassignment file: the replicas a partition should
// have.
type Move struct {
	TopicPartition
	Replicas []int32
	// LogDirs has one entry per replica; "any" when the file gives none.
	LogDirs []string
}

// versionOf reads the "version" field, 1 when absent, and refuses others.
func versionOf(raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("reassign: version: %w", err)
	}
	if v != 1 {
		return fmt.Errorf("Not supported version field value %d", v)
	}
	return nil
}

func decodeStrict(data []byte, v any) error {
	if !json.Valid(data) {
		return fmt.Errorf("The input string is not a valid JSON")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("reassign: %w", err)
	}
	return nil
}

// ParseReassignment reads a reassignment file, keeping the file's order.
func ParseReassignment(data []byte) ([]Move, error) {
	var file struct {
		Version    json.RawMessage `json:"version"`
		Partitions []struct {
			Topic     *string  `json:"topic"`
			Partition *int32   `json:"partition"`
			Replicas  []int32  `json:"replicas"`
			LogDirs   []string `json:"log_dirs"`
		} `json:"partitions"`
	}
	if err := decodeStrict(data, &file); err != nil {
		return nil, err
	}
	if err := versionOf(file.Version); err != nil {
		return nil, err
	}
	moves := make([]Move, 0, len(file.Partitions))
	for _, e := range file.Partitions {
		switch {
		case e.Topic == nil:
			return nil, fmt.Errorf("No such field exists: `topic`")
		case e.Partition == nil:
			return nil, fmt.Errorf("No such field exists: `partition`")
		case e.Replicas == nil:
			return nil, fmt.Errorf("No such field exists: `replicas`")
		}
		m := Move{TopicPartition: TopicPartition{Topic: *e.Topic, Partition: *e.Partition}, Replicas: e.Replicas, LogDirs: e.LogDirs}
		if m.LogDirs == nil {
			m.LogDirs = make([]string, len(m.Replicas))
			for i := range m.LogDirs {
				m.LogDirs[i] = anyLogDir
			}
		}
		if len(m.LogDirs) != len(m.Replicas) {
			return nil, fmt.Errorf("Size of replicas list %s is different from size of log dirs list %s for partition %s",
				javaInts(m.Replicas), javaStrings(m.LogDirs), m.TopicPartition)
		}
		moves = append(moves, m)
	}
	return moves, nil
}

// ParseTopicsToMove reads a --topics-to-move-json-file.
func ParseTopicsToMove(data []byte) ([]string, error) {
	var file struct {
		Version json.RawMessage `json:"version"`
		Topics  []struct {
			Topic *string `json:"topic"`
		} `json:"topics"`
	}
	if err := decodeStrict(data, &file); err != nil {
		return nil, err
	}
	if err := versionOf(file.Version); err != nil {
		return nil, err
	}
	topics := make([]string, 0, len(file.Topics))
	for _, t := range file.Topics {
		if t.Topic == nil {
			return nil, fmt.Errorf("No such field exists: `topic`")
		}
		topics = append(topics, *t.Topic)
	}
	return topics, nil
}

// FormatReassignment renders an assignment as the tool writes it: compact,
// version first, partitions sorted, log_dirs "any" for every replica.
func FormatReassignment(assignment map[TopicPartition][]int32) string {
	parts := make([]TopicPartition, 0, len(assignment))
	for p := range assignment {
		parts = append(parts, p)
	}
	slices.SortFunc(parts, compareTP)
	var b bytes.Buffer
	b.WriteString(`{"version":1,"partitions":[`)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		topic, _ := json.Marshal(p.Topic) // a string always marshals
		fmt.Fprintf(&b, `{"topic":%s,"partition":%d,"replicas":[`, topic, p.Partition)
		rs := assignment[p]
		for j, r := range rs {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(r)))
		}
		b.WriteString(`],"log_dirs":[`)
		for j := range rs {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + anyLogDir + `"`)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return b.String()
}

// javaInts and javaStrings render lists as Java's List.toString, the form
// Kafka's messages use.
func javaInts(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(int(x))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func javaStrings(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }

// joinInts renders ids comma-separated without spaces, as the tool's
// status lines do.
func joinInts(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}
