package cliutil

import (
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kgo"
)

// NewAdminClient builds a client for admin tools from --bootstrap-server and
// --command-config, warning on w about properties it did not understand.
func NewAdminClient(bootstrap, commandConfig string, warn io.Writer, extra ...kgo.Opt) (*kgo.Client, error) {
	c, err := BootstrapConfig(bootstrap, commandConfig)
	if err != nil {
		return nil, err
	}
	opts, err := CommonOpts(c)
	if err != nil {
		return nil, err
	}
	c.WarnUnused(warn)
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("cliutil: creating client: %w", err)
	}
	return cl, nil
}
