package znode

import (
	"fmt"
	"strings"
)

// EntityConfig is /config/<type>/<name> (topics, brokers incl. <default>,
// clients, users): dynamic config overrides, values always strings:
//
//	{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"86400000"}}
//
// Keys are written sorted. Topic creation writes an empty config first.
type EntityConfig struct {
	Config map[string]string
}

// Marshal encodes the config; a nil map is written as {}.
func (c EntityConfig) Marshal() ([]byte, error) {
	cfg := c.Config
	if cfg == nil {
		cfg = map[string]string{}
	}
	var o object
	o.field("version", 1)
	o.field("config", cfg)
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr("entity config", err)
	}
	return out, nil
}

// Unmarshal decodes the config. Non-string values (hand-written znodes)
// are kept as their JSON text, as Kafka reads them via toString.
func (c *EntityConfig) Unmarshal(data []byte) error {
	var v struct {
		Config map[string]flexString `json:"config"`
	}
	if err := decode("/config/<type>/<name>", data, &v); err != nil {
		return err
	}
	out := make(map[string]string, len(v.Config))
	for k, val := range v.Config {
		out[k] = string(val)
	}
	c.Config = out
	return nil
}

// ParseEntityConfig decodes /config/<type>/<name>.
func ParseEntityConfig(data []byte) (EntityConfig, error) {
	var c EntityConfig
	err := c.Unmarshal(data)
	return c, err
}

// ConfigChangeNotification is /config/changes/config_change_<seq>, which
// tells every broker to reload /config/<entity_path>:
//
//	v2 {"version":2,"entity_path":"topics/orders"}
//	v1 {"version":1,"entity_type":"topics","entity_name":"orders"} (read only)
type ConfigChangeNotification struct {
	EntityPath string // "<type>/<name>", e.g. "topics/orders", "brokers/<default>"
}

// NewConfigChange is the notification for one entity.
func NewConfigChange(entityType, entity string) ConfigChangeNotification {
	return ConfigChangeNotification{EntityPath: entityType + "/" + entity}
}

// Entity splits EntityPath into the entity type and name (the name may hold
// further slashes, as "users/<u>/clients/<c>").
func (n ConfigChangeNotification) Entity() (entityType, name string) {
	entityType, name, _ = strings.Cut(n.EntityPath, "/")
	return entityType, name
}

// Marshal encodes the version 2 notification.
func (n ConfigChangeNotification) Marshal() ([]byte, error) {
	if t, name := n.Entity(); t == "" || name == "" {
		return nil, marshalErr("config change", fmt.Errorf("entity path %q: want <type>/<name>", n.EntityPath))
	}
	var o object
	o.field("version", 2)
	o.field("entity_path", n.EntityPath)
	return o.bytes()
}

// Unmarshal decodes versions 1 and 2.
func (n *ConfigChangeNotification) Unmarshal(data []byte) error {
	const what = "config change notification"
	var v struct {
		Version    int    `json:"version"`
		EntityPath string `json:"entity_path"`
		EntityType string `json:"entity_type"`
		EntityName string `json:"entity_name"`
	}
	if err := decode(what, data, &v); err != nil {
		return err
	}
	switch {
	case v.Version == 1 && v.EntityType != "" && v.EntityName != "":
		n.EntityPath = v.EntityType + "/" + v.EntityName
	case v.Version >= 2 && v.EntityPath != "":
		n.EntityPath = v.EntityPath
	default:
		return parseErr(what, "unsupported %s", data)
	}
	return nil
}

// ParseConfigChangeNotification decodes a config change notification.
func ParseConfigChangeNotification(data []byte) (ConfigChangeNotification, error) {
	var n ConfigChangeNotification
	err := n.Unmarshal(data)
	return n, err
}
