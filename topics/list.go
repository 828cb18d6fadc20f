package topics

import (
	"context"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kadm"
)

// list prints the matching topic names, sorted, one per line.
func list(ctx context.Context, adm *kadm.Client, o Options, out io.Writer) error {
	_, names, err := matchingTopics(ctx, adm, o)
	if err != nil {
		return err
	}
	for _, name := range names {
		fmt.Fprintln(out, name)
	}
	return nil
}
