package configs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Entity types kafgo configures.
const (
	EntityTopics  = "topics"
	EntityBrokers = "brokers"
)

// Options are the parsed flags.
type Options struct {
	EntityType    string
	EntityName    string
	EntityDefault bool // --entity-default / --broker-defaults
	NameSet       bool // --entity-name (or a shortcut) was given

	Describe, Alter bool
	All             bool // --all with --describe

	AddConfig    string   // --add-config k1=v1,k2=[a,b]
	AddFile      string   // contents of --add-config-file (properties)
	DeleteConfig []string // --delete-config k1,k2 (repeatable)
}

// Shortcuts applies --topic, --broker and --broker-defaults, which set the
// entity type and name in one flag, as Kafka's ConfigCommand does.
func (o *Options) Shortcuts(topic string, topicSet bool, broker string, brokerSet bool, brokerDefaults bool) error {
	n := 0
	for _, b := range []bool{topicSet, brokerSet, brokerDefaults} {
		if b {
			n++
		}
	}
	if n > 1 || (n == 1 && o.EntityType != "") {
		return errors.New("Only one of --entity-type, --topic, --broker or --broker-defaults can be specified")
	}
	switch {
	case topicSet:
		o.EntityType, o.EntityName, o.NameSet = EntityTopics, topic, true
	case brokerSet:
		o.EntityType, o.EntityName, o.NameSet = EntityBrokers, broker, true
	case brokerDefaults:
		o.EntityType, o.EntityDefault = EntityBrokers, true
	}
	return nil
}

// Validate applies ConfigCommand's option checks.
func (o *Options) Validate() error {
	if o.Describe == o.Alter {
		return errors.New("Command must include exactly one action: --describe, --alter")
	}
	switch o.EntityType {
	case "":
		return errors.New("At least one entity type must be specified")
	case EntityTopics, EntityBrokers, EntityUsers:
	case "clients", "ips", "broker-loggers", "client-metrics", "groups":
		return fmt.Errorf("Entity type %s is not supported by kafgo: it has no quotas, loggers, client metrics or group configs to set; use topics, brokers or users", o.EntityType)
	default:
		return fmt.Errorf("Invalid entity type %s, the entity type must be one of topics, brokers, users, clients, ips, broker-loggers, client-metrics, groups", o.EntityType)
	}
	if o.EntityDefault && o.EntityType == EntityTopics {
		return errors.New("--entity-default is only valid with --entity-type brokers or users")
	}
	if o.EntityDefault && o.NameSet {
		return errors.New("--entity-name and --entity-default cannot be specified together")
	}
	if o.NameSet && o.EntityName == "" {
		return fmt.Errorf("an entity name must be specified with --entity-name")
	}
	if o.EntityType == EntityBrokers && o.NameSet {
		if _, err := strconv.ParseInt(o.EntityName, 10, 32); err != nil {
			return fmt.Errorf("The entity name for brokers must be a valid integer broker id, but it is: %s", o.EntityName)
		}
	}
	if o.Alter {
		if !o.NameSet && !o.EntityDefault {
			return errors.New("an entity name must be specified with --alter of " + o.EntityType)
		}
		if o.AddConfig == "" && o.AddFile == "" && len(o.DeleteConfig) == 0 {
			return errors.New("At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter")
		}
		if o.AddConfig != "" && o.AddFile != "" {
			return errors.New("Only one of --add-config or --add-config-file must be specified")
		}
	}
	if o.Describe && (o.AddConfig != "" || o.AddFile != "" || len(o.DeleteConfig) > 0) {
		return errors.New("--add-config and --delete-config are only valid with --alter")
	}
	if o.All && !o.Describe {
		return errors.New("--all is only valid with --describe")
	}
	return nil
}

// ParseAddConfig splits --add-config: comma-separated k=v pairs, where a
// value in square brackets may itself hold commas (k=[a,b] sets "a,b").
func ParseAddConfig(s string) (map[string]string, []string, error) {
	out := map[string]string{}
	var order []string
	invalid := errors.New(`Invalid entity config: all configs to be added must be in the format "key=val".`)
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, nil, invalid
		}
		key := strings.TrimSpace(s[:eq])
		rest := s[eq+1:]
		var val string
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, nil, invalid
			}
			val, rest = rest[1:end], rest[end+1:]
			if rest != "" && !strings.HasPrefix(rest, ",") {
				return nil, nil, invalid
			}
		} else if comma := strings.IndexByte(rest, ','); comma >= 0 {
			val, rest = rest[:comma], rest[comma:]
		} else {
			val, rest = rest, ""
		}
		s = strings.TrimPrefix(rest, ",")
		if key == "" || strings.ContainsAny(key, "=,") {
			return nil, nil, invalid
		}
		if _, dup := out[key]; !dup {
			order = append(order, key)
		}
		out[key] = val
	}
	if len(out) == 0 {
		return nil, nil, invalid
	}
	return out, order, nil
}

// deleteKeys flattens --delete-config values (each a comma list).
func deleteKeys(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				out = append(out, k)
			}
		}
	}
	return out
}
