package getoffsets

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Filter selects topics and partitions: GetOffsetShell's
// TopicPartitionFilter.
type Filter interface {
	TopicAllowed(topic string) bool
	PartitionAllowed(topic string, partition int32) bool
}

// topicPattern is TopicFilter.IncludeList: a Java regex matched against
// the whole topic name, after the tool's clean-up of the raw value
// (commas mean "or", spaces and surrounding quotes are dropped).
type topicPattern struct{ re *regexp.Regexp }

func newTopicPattern(raw string) (topicPattern, error) {
	s := strings.TrimSpace(raw)
	s = strings.ReplaceAll(s, ",", "|")
	s = strings.ReplaceAll(s, " ", "")
	s = strings.TrimLeft(s, `"'`)
	s = strings.TrimRight(s, `"'`)
	re, err := regexp.Compile(`^(?:` + s + `)$`)
	if err != nil {
		return topicPattern{}, fmt.Errorf("%s is an invalid regex.", s)
	}
	return topicPattern{re: re}, nil
}

func (p topicPattern) match(topic string) bool { return p.re.MatchString(topic) }

// rule is one topic pattern with one partition filter.
type rule struct {
	topic     topicPattern
	partition func(int32) bool
}

func (r rule) TopicAllowed(t string) bool { return r.topic.match(t) }
func (r rule) PartitionAllowed(t string, p int32) bool {
	return r.topic.match(t) && r.partition(p)
}

// anyRule is a composite: a partition any of the rules allows.
type anyRule []rule

func (rs anyRule) TopicAllowed(t string) bool {
	for _, r := range rs {
		if r.TopicAllowed(t) {
			return true
		}
	}
	return false
}

func (rs anyRule) PartitionAllowed(t string, p int32) bool {
	for _, r := range rs {
		if r.PartitionAllowed(t, p) {
			return true
		}
	}
	return false
}

// ruleSpec is GetOffsetShell's TOPIC_PARTITION_PATTERN.
var ruleSpec = regexp.MustCompile(`^([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?$`)

// TopicPartitionsFilter parses --topic-partitions.
func TopicPartitionsFilter(spec string) (Filter, error) {
	var rules anyRule
	for _, s := range splitJava(spec, ",") {
		m := ruleSpec.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("Invalid rule specification: %s", s)
		}
		topic := ".*"
		if m[1] != "" {
			topic = m[1]
		}
		tp, err := newTopicPattern(topic)
		if err != nil {
			return nil, err
		}
		r := rule{topic: tp}
		if m[2] != "" {
			n, err := partitionNumber(m[2])
			if err != nil {
				return nil, err
			}
			r.partition = func(p int32) bool { return int64(p) == n }
		} else {
			lo, hi := int64(0), int64(math.MaxInt32)
			if m[3] != "" {
				if lo, err = partitionNumber(m[3]); err != nil {
					return nil, err
				}
			}
			if m[4] != "" {
				if hi, err = partitionNumber(m[4]); err != nil {
					return nil, err
				}
			}
			r.partition = func(p int32) bool { return int64(p) >= lo && int64(p) < hi }
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func partitionNumber(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("For input string: \"%s\"", s)
	}
	return n, nil
}

// TopicAndPartitionsFilter is --topic (default every topic) with
// --partitions (default every partition).
func TopicAndPartitionsFilter(topic string, topicSet bool, partitions string) (Filter, error) {
	if !topicSet {
		topic = ".*"
	}
	tp, err := newTopicPattern(topic)
	if err != nil {
		return nil, err
	}
	ids := map[int64]bool{}
	if partitions != "" {
		for _, s := range strings.Split(partitions, ",") {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("--partitions expects a comma separated list of numeric partition ids, but received: %s", partitions)
			}
			ids[n] = true
		}
	}
	return rule{topic: tp, partition: func(p int32) bool { return len(ids) == 0 || ids[int64(p)] }}, nil
}

// splitJava is Java's String.split: trailing empty strings are dropped.
func splitJava(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
