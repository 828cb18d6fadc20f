package tui

import (
	"context"
	"fmt"
	"strings"

	"kafgo/internal/adminapi"
)

// ThrottledClient is a client quota sensor of a broker that throttled its
// clients recently (admin /v1/quotas).
type ThrottledClient struct {
	Type           string // produce, fetch or request
	User, ClientID string // empty: the quota covers every value
	ThrottleTimeMs float64
}

// String names it for the brokers view: "produce client-id c1 230ms".
func (c ThrottledClient) String() string {
	var who []string
	if c.User != "" {
		who = append(who, "user "+c.User)
	}
	if c.ClientID != "" {
		who = append(who, "client-id "+c.ClientID)
	}
	if len(who) == 0 {
		who = append(who, "everyone")
	}
	return fmt.Sprintf("%s %s %.0fms", c.Type, strings.Join(who, " "), c.ThrottleTimeMs)
}

// adminQuotas reads an endpoint's client quota sensors; a broker without
// the document (an older kafgo) has none to show, which is no warning.
func (l *Live) adminQuotas(ctx context.Context, base string) []adminapi.ClientQuota {
	var q []adminapi.ClientQuota
	if err := l.getJSON(ctx, base+adminapi.QuotasPath, &q); err != nil {
		return nil
	}
	return q
}

// throttledClients keeps the sensors that throttled someone recently.
func throttledClients(q []adminapi.ClientQuota) []ThrottledClient {
	var out []ThrottledClient
	for _, c := range q {
		if c.Throttled || c.ThrottleTimeMs > 0 {
			out = append(out, ThrottledClient{Type: c.Type, User: c.User, ClientID: c.ClientID, ThrottleTimeMs: c.ThrottleTimeMs})
		}
	}
	return out
}

// throttledLine is the brokers view's line for a broker throttling
// clients.
func throttledLine(b Broker) string {
	return fmt.Sprintf("Broker %d throttles %s", b.ID, throttledClientsText(b))
}

// throttledClientsText lists the clients b throttled.
func throttledClientsText(b Broker) string {
	names := make([]string, len(b.Throttled))
	for i, c := range b.Throttled {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}
