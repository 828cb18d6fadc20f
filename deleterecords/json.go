package deleterecords

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"kafgo/internal/topicpart"
)

// Target is one partition of the file and the offset to delete up to.
type Target struct {
	TP     topicpart.TP
	Offset int64
}

// ParseJSON reads an --offset-json-file with DeleteRecordsCommand's
// checks and messages.
func ParseJSON(data []byte) ([]Target, error) {
	var doc struct {
		Version    *json.RawMessage `json:"version"`
		Partitions *[]struct {
			Topic     *string `json:"topic"`
			Partition *int32  `json:"partition"`
			Offset    *int64  `json:"offset"`
		} `json:"partitions"`
	}
	if len(bytes.TrimSpace(data)) == 0 || json.Unmarshal(data, &doc) != nil {
		return nil, errors.New("The input string is not a valid JSON")
	}
	version := 1
	if doc.Version != nil {
		if err := json.Unmarshal(*doc.Version, &version); err != nil {
			return nil, fmt.Errorf("delete-records: \"version\" is not an integer: %s", *doc.Version)
		}
	}
	if version != 1 {
		return nil, fmt.Errorf("Not supported version field value %d", version)
	}
	if doc.Partitions == nil {
		return nil, errors.New("Missing partitions field")
	}
	var out []Target
	count := map[topicpart.TP]int{}
	var dups []topicpart.TP
	for i, p := range *doc.Partitions {
		if p.Topic == nil || p.Partition == nil || p.Offset == nil {
			return nil, fmt.Errorf("delete-records: partition %d of the JSON file lacks \"topic\", \"partition\" or \"offset\"", i)
		}
		tp := topicpart.TP{Topic: *p.Topic, Partition: *p.Partition}
		if count[tp]++; count[tp] == 2 {
			dups = append(dups, tp)
		}
		out = append(out, Target{TP: tp, Offset: *p.Offset})
	}
	if len(dups) > 0 {
		topicpart.Sort(dups)
		return nil, fmt.Errorf("Offset json file contains duplicate topic partitions: %s", strings.Join(topicpart.Strings(dups), ","))
	}
	return out, nil
}
