package dynconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/internal/znodejson"
)

// Paths and names.
const (
	Root          = "/config"
	ChangesPath   = "/config/changes"
	ChangePrefix  = "config_change_"
	Topics        = "topics"
	Clients       = "clients"
	Users         = "users"
	Brokers       = "brokers"
	DefaultEntity = "<default>"
)

// ErrFormat is wrapped by every parse and marshal error.
var ErrFormat = kafkaerr.Sentinel(kerr.UnknownServerError, "dynconfig: bad config znode")

// Path is /config/<entityType>/<entity>, entity already sanitized.
func Path(entityType, entity string) string { return Root + "/" + entityType + "/" + entity }

// TopicPath is /config/topics/<topic>.
func TopicPath(topic string) string { return Path(Topics, topic) }

// BrokerPath is /config/brokers/<id>, or /config/brokers/<default> for
// DefaultEntity.
func BrokerPath(broker string) string { return Path(Brokers, broker) }

// UserPath is /config/users/<sanitized user>, which holds the user's SCRAM
// credentials (SCRAM-SHA-256, SCRAM-SHA-512) and quota configs; its change
// notification names users/<sanitized user>.
func UserPath(user string) string { return Path(Users, Sanitize(user)) }

// ChangeSeqPath is the path to create persistent-sequential for a change
// notification; ZooKeeper appends the 10-digit counter.
func ChangeSeqPath() string { return ChangesPath + "/" + ChangePrefix }

// Sanitize encodes a user principal or client id for a znode name.
func Sanitize(name string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// Desanitize reverses Sanitize as Java's URLDecoder does ("+" is a space,
// %XX a byte); a malformed escape is an error.
func Desanitize(name string) (string, error) {
	s, err := url.QueryUnescape(name)
	if err != nil {
		return "", fmt.Errorf("%w: desanitizing %q: %v", ErrFormat, name, err)
	}
	return s, nil
}

// MarshalConfig encodes an entity's config; nil is written as {}.
func MarshalConfig(cfg map[string]string) ([]byte, error) {
	if cfg == nil {
		cfg = map[string]string{}
	}
	body, err := znodejson.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: marshal entity config: %v", ErrFormat, err)
	}
	return append(append([]byte(`{"version":1,"config":`), body...), '}'), nil
}

// ParseConfig decodes an entity's config. Unknown fields are ignored, as
// Kafka's parser does; a missing "config" is an empty one.
func ParseConfig(data []byte) (map[string]string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		// An entity znode with no data is an entity without overrides, as
		// Kafka reads it: its own tools leave /config/users/<u> so when
		// they set only a quota of one of the user's client ids.
		return map[string]string{}, nil
	}
	var v struct {
		Config map[string]json.RawMessage `json:"config"`
	}
	if err := decode("entity config", data, &v); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(v.Config))
	for k, raw := range v.Config {
		s, err := znodejson.Text(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: entity config %q: %v", ErrFormat, k, err)
		}
		out[k] = s
	}
	return out, nil
}

// SplitEntityPath splits a notification's entity path into the entity type
// and name (the name may hold further slashes: users/<u>/clients/<c>).
func SplitEntityPath(entityPath string) (entityType, name string) {
	entityType, name, _ = strings.Cut(entityPath, "/")
	return entityType, name
}

// MarshalChange encodes the version 2 notification for an entity path,
// "<type>/<sanitized name>".
func MarshalChange(entityPath string) ([]byte, error) {
	if t, name := SplitEntityPath(entityPath); t == "" || name == "" {
		return nil, fmt.Errorf("%w: config change: entity path %q: want <type>/<name>", ErrFormat, entityPath)
	}
	path, err := znodejson.Marshal(entityPath)
	if err != nil {
		return nil, fmt.Errorf("%w: config change: %v", ErrFormat, err)
	}
	return append(append([]byte(`{"version":2,"entity_path":`), path...), '}'), nil
}

// ParseChange decodes a version 1 or 2 notification into its entity path.
func ParseChange(data []byte) (string, error) {
	var v struct {
		Version    int    `json:"version"`
		EntityPath string `json:"entity_path"`
		EntityType string `json:"entity_type"`
		EntityName string `json:"entity_name"`
	}
	if err := decode("config change notification", data, &v); err != nil {
		return "", err
	}
	switch {
	case v.Version == 1 && v.EntityType != "" && v.EntityName != "":
		return v.EntityType + "/" + v.EntityName, nil
	case v.Version >= 2 && v.EntityPath != "":
		return v.EntityPath, nil
	}
	return "", fmt.Errorf("%w: unsupported config change notification %s", ErrFormat, data)
}

func decode(what string, data []byte, v any) error {
	if err := znodejson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrFormat, what, err)
	}
	return nil
}
