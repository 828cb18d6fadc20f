package console

import (
	"fmt"
	"strings"
)

// ResolveGroup picks the consumer group from --group, --consumer-property
// and --consumer.config, which must agree when more than one names it, as
// in Kafka's ConsoleConsumer.
func ResolveGroup(flagGroup string, cliProps, fileProps map[string]string) (string, error) {
	var ids []string
	seen := map[string]bool{}
	for _, v := range []string{flagGroup, cliProps["group.id"], fileProps["group.id"]} {
		if v != "" && !seen[v] {
			seen[v] = true
			ids = append(ids, v)
		}
	}
	switch len(ids) {
	case 0:
		return "", nil
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. Detected group ids: %s",
		"'"+strings.Join(ids, "', '")+"'")
}
