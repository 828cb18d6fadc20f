package znode

import (
	"fmt"

	"kafgo/internal/configznode"
)

// EntityConfig is /config/<type>/<name> (topics, brokers incl. <default>,
// clients, users): dynamic config overrides, values always strings:
//
//	{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"86400000"}}
//
// Keys are written sorted. Topic creation writes an empty config first. The
// format is internal/configznode's, which the configs tool shares.
type EntityConfig struct {
	Config map[string]string
}

// Marshal encodes the config; a nil map is written as {}.
func (c EntityConfig) Marshal() ([]byte, error) {
	out, err := configznode.MarshalConfig(c.Config)
	if err != nil {
		return nil, marshalErr("entity config", err)
	}
	return out, nil
}

// Unmarshal decodes the config. Non-string values (hand-written znodes)
// are kept as their JSON text, as Kafka reads them via toString.
func (c *EntityConfig) Unmarshal(data []byte) error {
	cfg, err := configznode.ParseConfig(data)
	if err != nil {
		return fmt.Errorf("znode: %w", err)
	}
	c.Config = cfg
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
	return configznode.SplitEntityPath(n.EntityPath)
}

// Marshal encodes the version 2 notification.
func (n ConfigChangeNotification) Marshal() ([]byte, error) {
	out, err := configznode.MarshalChange(n.EntityPath)
	if err != nil {
		return nil, marshalErr("config change", err)
	}
	return out, nil
}

// Unmarshal decodes versions 1 and 2.
func (n *ConfigChangeNotification) Unmarshal(data []byte) error {
	path, err := configznode.ParseChange(data)
	if err != nil {
		return fmt.Errorf("znode: %w", err)
	}
	n.EntityPath = path
	return nil
}

// ParseConfigChangeNotification decodes a config change notification.
func ParseConfigChangeNotification(data []byte) (ConfigChangeNotification, error) {
	var n ConfigChangeNotification
	err := n.Unmarshal(data)
	return n, err
}
