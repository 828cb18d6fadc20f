// Package adminclient finds and reads the brokers' admin endpoints
// (admin.listener: /metrics and the /v1 JSON documents of
// internal/adminapi) for the client tools: an endpoint is taken from the
// operator's list or else from the broker's own admin.listener config
// (DescribeConfigs), an empty or wildcard host standing for the broker's
// advertised host.
package adminclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Endpoint is broker id's admin endpoint (host:port), read from its
// admin.listener config; host is the broker's advertised host.
func Endpoint(ctx context.Context, adm *kadm.Client, id int32, host string) (string, error) {
	rcs, err := adm.DescribeBrokerConfigs(ctx, id)
	if err != nil {
		return "", fmt.Errorf("broker %d's admin.listener: %w", id, err)
	}
	v := ""
	for _, rc := range rcs {
		if rc.Err != nil {
			return "", fmt.Errorf("broker %d's admin.listener: %w", id, rc.Err)
		}
		for _, c := range rc.Configs {
			if c.Key == "admin.listener" && c.Value != nil {
				v = *c.Value
			}
		}
	}
	if v == "" {
		return "", fmt.Errorf("broker %d has no admin endpoint (admin.listener is not set)", id)
	}
	h, port, err := net.SplitHostPort(v)
	if err != nil {
		return "", fmt.Errorf("broker %d's admin.listener %q: %w", id, v, err)
	}
	if h == "" || h == "0.0.0.0" || h == "::" {
		h = host
	}
	return net.JoinHostPort(h, port), nil
}

var client = &http.Client{Timeout: 15 * time.Second}

// Get decodes the JSON document at path of the endpoint addr into v.
func Get(ctx context.Context, addr, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s from %s: %s", path, addr, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s from %s: %w", path, addr, err)
	}
	return nil
}
