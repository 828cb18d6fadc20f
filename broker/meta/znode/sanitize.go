package znode

import (
	"fmt"

	"kafgo/internal/configznode"
)

// Sanitize makes a user principal or client id a znode name as Kafka's
// Sanitizer does (kafka-configs and the brokers both use it for
// /config/users/<user> and /config/clients/<client-id>); see
// internal/configznode, which the configs tool shares.
func Sanitize(name string) string { return configznode.Sanitize(name) }

// Desanitize reverses Sanitize, as Java's URLDecoder does ("+" is a
// space, %XX a byte); a malformed escape is an error.
func Desanitize(name string) (string, error) {
	s, err := configznode.Desanitize(name)
	if err != nil {
		return "", fmt.Errorf("znode: %w", err)
	}
	return s, nil
}

// UserConfigPath is /config/users/<sanitized user>, which holds the
// user's SCRAM credentials (SCRAM-SHA-256, SCRAM-SHA-512) and quota
// configs; its change notification names users/<sanitized user>.
func UserConfigPath(user string) string {
	return EntityConfigPath(ConfigTypeUser, Sanitize(user))
}
