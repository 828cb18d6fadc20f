package tui

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ConfigResource names what a configs view shows: a topic, or a broker by
// id.
type ConfigResource struct {
	Broker bool
	Name   string
}

func (r ConfigResource) String() string {
	if r.Broker {
		return "broker " + r.Name
	}
	return "topic " + r.Name
}

// ConfigEntry is one config as DescribeConfigs reports it.
type ConfigEntry struct {
	Name  string
	Value string // "" for a sensitive or unset value (see Sensitive, Null)
	Null  bool   // no value at all
	// Source is Kafka's ConfigSource name: DYNAMIC_TOPIC_CONFIG,
	// DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG,
	// STATIC_BROKER_CONFIG, DEFAULT_CONFIG, ...
	Source    string
	Sensitive bool
	ReadOnly  bool
}

// Dynamic reports whether the value is an override set at run time
// (kafka-configs --alter): the one an operator changed and can delete.
func (c ConfigEntry) Dynamic() bool {
	switch c.Source {
	case "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG":
		return true
	}
	return false
}

// ConfigSource describes configs on demand: the configs view asks when it
// opens and when refreshed, not every snapshot.
type ConfigSource interface {
	Configs(ctx context.Context, r ConfigResource) ([]ConfigEntry, error)
}

// Configs sends DescribeConfigs: a broker's to that broker, which alone
// knows its static and dynamic values; a topic's to any broker.
func (l *Live) Configs(ctx context.Context, r ConfigResource) ([]ConfigEntry, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, r.Name
	var (
		resp *kmsg.DescribeConfigsResponse
		err  error
	)
	if r.Broker {
		id, perr := strconv.ParseInt(r.Name, 10, 32)
		if perr != nil {
			return nil, fmt.Errorf("tui: broker id %q: %w", r.Name, perr)
		}
		res.ResourceType = kmsg.ConfigResourceTypeBroker
		req.Resources = append(req.Resources, res)
		resp, err = req.RequestWith(ctx, l.cl.Broker(int(id)))
	} else {
		req.Resources = append(req.Resources, res)
		resp, err = req.RequestWith(ctx, l.cl)
	}
	if err != nil {
		return nil, fmt.Errorf("tui: describe configs of %s: %w", r, err)
	}
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("tui: describe configs of %s: %d resources in the answer", r, len(resp.Resources))
	}
	rr := resp.Resources[0]
	if err := kerr.ErrorForCode(rr.ErrorCode); err != nil {
		if rr.ErrorMessage != nil && *rr.ErrorMessage != "" {
			return nil, fmt.Errorf("tui: describe configs of %s: %w: %s", r, err, *rr.ErrorMessage)
		}
		return nil, fmt.Errorf("tui: describe configs of %s: %w", r, err)
	}
	out := make([]ConfigEntry, 0, len(rr.Configs))
	for _, c := range rr.Configs {
		e := ConfigEntry{Name: c.Name, Source: c.Source.String(), Sensitive: c.IsSensitive, ReadOnly: c.ReadOnly, Null: c.Value == nil}
		if c.Value != nil {
			e.Value = *c.Value
		}
		if resp.Version == 0 {
			// Version 0 has no source, only whether the value is the
			// default; anything else counts as an override.
			e.Source = "DYNAMIC_" + map[bool]string{true: "BROKER", false: "TOPIC"}[r.Broker] + "_CONFIG"
			if c.IsDefault {
				e.Source = "DEFAULT_CONFIG"
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// minISRConfig is the topic config behind under-min-ISR partitions.
const minISRConfig = "min.insync.replicas"

// topicConfigs reads the named configs of every topic in one
// DescribeConfigs round, by topic.
func (l *Live) topicConfigs(ctx context.Context, topics []string, names ...string) (map[string]map[string]string, error) {
	if len(topics) == 0 {
		return nil, nil
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	for _, t := range topics {
		res := kmsg.NewDescribeConfigsRequestResource()
		res.ResourceType, res.ResourceName, res.ConfigNames = kmsg.ConfigResourceTypeTopic, t, names
		req.Resources = append(req.Resources, res)
	}
	resp, err := req.RequestWith(ctx, l.cl)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, rr := range resp.Resources {
		if rr.ErrorCode != 0 {
			continue // a topic deleted since Metadata: nothing to say
		}
		m := map[string]string{}
		for _, c := range rr.Configs {
			if c.Value != nil {
				m[c.Name] = *c.Value
			}
		}
		out[rr.ResourceName] = m
	}
	return out, nil
}
