package leaderelection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kafgo/internal/topicpart"
)

// ParseJSON reads the partitions of a --path-to-json-file, with Kafka's
// complaints: an empty file, no "partitions" field, a partition listed
// twice.
func ParseJSON(data []byte) ([]topicpart.TP, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("Replica election data is empty")
	}
	var doc struct {
		Partitions *[]struct {
			Topic     *string `json:"topic"`
			Partition *int32  `json:"partition"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("leader-election: reading the JSON file: %w", err)
	}
	if doc.Partitions == nil {
		return nil, errors.New(`Replica election data is missing "partitions" field`)
	}
	var out []topicpart.TP
	seen := map[topicpart.TP]int{}
	for i, p := range *doc.Partitions {
		if p.Topic == nil || p.Partition == nil {
			return nil, fmt.Errorf("leader-election: partition %d of the JSON file lacks \"topic\" or \"partition\"", i)
		}
		tp := topicpart.TP{Topic: *p.Topic, Partition: *p.Partition}
		seen[tp]++
		out = append(out, tp)
	}
	var dups []string
	for tp, n := range seen {
		if n > 1 {
			dups = append(dups, tp.String())
		}
	}
	if len(dups) > 0 {
		slices.Sort(dups)
		return nil, fmt.Errorf("Replica election data contains duplicate partitions: [%s]", strings.Join(dups, ", "))
	}
	return out, nil
}
