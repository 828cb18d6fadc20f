package rebalance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// RunOptions are the command's flags.
type RunOptions struct {
	Plan          Options
	Execute       bool
	DryRun        bool
	JSONFile      string // where to write the proposed reassignment JSON
	Admin         string // --admin
	MetricsWindow time.Duration
	ExcludeTopics string // regex
	Exec          ExecOptions
}

// Validate checks the flags together.
func (o RunOptions) Validate() error {
	if o.Execute && o.DryRun {
		return errors.New("--execute and --dry-run cannot be given together")
	}
	if o.Exec.Concurrency < 1 {
		return errors.New("--concurrency must be at least 1")
	}
	if o.MetricsWindow < 0 {
		return errors.New("--metrics-window must not be negative")
	}
	return nil
}

// Run loads the cluster, plans, prints the plan, writes its JSON and, with
// Execute, carries it out.
func Run(ctx context.Context, cl *kgo.Client, o RunOptions, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	lo := LoadOptions{MetricsWindow: o.MetricsWindow}
	if o.ExcludeTopics != "" {
		re, err := regexp.Compile("^(?:" + o.ExcludeTopics + ")$")
		if err != nil {
			return fmt.Errorf("--exclude-topics %s: %w", o.ExcludeTopics, err)
		}
		lo.ExcludeTopics = re.MatchString
	}
	if o.Admin != "" {
		ids, err := brokerIDs(ctx, cl)
		if err != nil {
			return err
		}
		if lo.Admin, err = ParseAdmin(o.Admin, ids); err != nil {
			return err
		}
	}
	if o.MetricsWindow > 0 {
		fmt.Fprintf(out, "Measuring traffic for %s...\n", o.MetricsWindow)
	}
	m, err := Load(ctx, cl, lo, out)
	if err != nil {
		return err
	}
	plan, err := Make(m, o.Plan)
	if err != nil {
		if plan != nil {
			Render(out, plan)
		}
		return err
	}
	Render(out, plan)
	if o.JSONFile != "" && len(plan.Changes) > 0 {
		if err := os.WriteFile(o.JSONFile, []byte(FormatJSON(plan.Assignment())+"\n"), 0o644); err != nil {
			return fmt.Errorf("rebalance: writing %s: %w", o.JSONFile, err)
		}
		fmt.Fprintf(out, "\nWrote the proposed reassignment to %s\n", o.JSONFile)
	}
	if !o.Execute {
		fmt.Fprintln(out, "\nDry run: nothing was changed (--execute carries the plan out).")
		return nil
	}
	fmt.Fprintln(out)
	return Execute(ctx, cl, plan, o.Exec, out)
}

func brokerIDs(ctx context.Context, cl *kgo.Client) ([]int32, error) {
	m, err := Load(ctx, cl, LoadOptions{}, io.Discard)
	if err != nil {
		return nil, err
	}
	ids := make([]int32, len(m.Brokers))
	for i, b := range m.Brokers {
		ids[i] = b.ID
	}
	return ids, nil
}
