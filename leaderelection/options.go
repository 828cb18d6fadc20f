package leaderelection

import (
	"errors"
	"fmt"
	"strings"
)

// ElectionType is Kafka's ElectionType: its wire value and its name.
type ElectionType int8

// The election types (ElectLeaders' election_type).
const (
	Preferred ElectionType = 0
	Unclean   ElectionType = 1
)

func (t ElectionType) String() string {
	if t == Unclean {
		return "UNCLEAN"
	}
	return "PREFERRED"
}

// ParseElectionType reads --election-type the way joptsimple's
// EnumConverter does: the constant's name, in any case.
func ParseElectionType(s string) (ElectionType, error) {
	switch strings.ToUpper(s) {
	case "PREFERRED":
		return Preferred, nil
	case "UNCLEAN":
		return Unclean, nil
	}
	return 0, fmt.Errorf("Value for option election-type must be one of: preferred, unclean (got %q)", s)
}

// Options are the parsed flags. The *Set fields say which flags were
// given, for LeaderElectionCommandOptions.validate's checks.
type Options struct {
	BootstrapSet    bool
	ElectionTypeSet bool
	ElectionType    ElectionType

	Topic        string
	TopicSet     bool
	Partition    int32
	PartitionSet bool

	AllTopicPartitions bool
	PathToJSONFile     string
}

// Validate applies Kafka's checks, with its messages.
func (o *Options) Validate() error {
	var missing []string
	if !o.BootstrapSet {
		missing = append(missing, "bootstrap-server")
	}
	if !o.ElectionTypeSet {
		missing = append(missing, "election-type")
	}
	if len(missing) > 0 {
		return errors.New("Missing required option(s): " + strings.Join(missing, ", "))
	}
	n := 0
	for _, on := range []bool{o.TopicSet, o.AllTopicPartitions, o.PathToJSONFile != ""} {
		if on {
			n++
		}
	}
	if n != 1 {
		return errors.New("One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file")
	}
	if o.TopicSet && !o.PartitionSet {
		return errors.New("Missing required option(s): partition")
	}
	if !o.TopicSet && o.PartitionSet {
		return errors.New("Option partition is only allowed if topic is used")
	}
	return nil
}
