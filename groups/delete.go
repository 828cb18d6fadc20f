package groups

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// ErrDeleteFailed is returned, wrapped, when a group could not be deleted.
var ErrDeleteFailed = errors.New("groups: deletion failed")

func deleteGroups(ctx context.Context, adm *kadm.Client, o Options, out io.Writer) error {
	names, err := selectGroups(ctx, adm, o)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	resps, err := adm.DeleteGroups(ctx, names...)
	if err != nil {
		return fmt.Errorf("groups: deleting groups: %w", err)
	}
	var ok, failed []string
	var b strings.Builder
	for _, n := range names {
		r, found := resps[n]
		switch {
		case !found:
			failed = append(failed, n)
			fmt.Fprintf(&b, "* Group '%s' could not be deleted due to: no response\n", n)
		case r.Err != nil:
			failed = append(failed, n)
			fmt.Fprintf(&b, "* Group '%s' could not be deleted due to: %s\n", n, errText(r.Err))
		default:
			ok = append(ok, n)
		}
	}
	if len(failed) == 0 {
		fmt.Fprintf(out, "Deletion of requested consumer groups (%s) was successful.\n", joinQuoted(ok))
		return nil
	}
	fmt.Fprintf(out, "Deletion of some consumer groups failed:\n%s", b.String())
	if len(ok) > 0 {
		fmt.Fprintf(out, "\nThese consumer groups were deleted successfully: %s\n", joinQuoted(ok))
	}
	return fmt.Errorf("%w for %s", ErrDeleteFailed, joinQuoted(failed))
}

// errText is a broker error's description, the part Java's exception
// message carries.
func errText(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Description
	}
	return err.Error()
}

func deleteOffsets(ctx context.Context, adm *kadm.Client, o Options, out, errOut io.Writer) error {
	group := o.Groups[0]
	set := kadm.TopicsSet{}
	var whole []string
	for _, s := range o.Topics {
		t, ps, err := ParseTopicScope(s)
		if err != nil {
			return err
		}
		if ps == nil {
			whole = append(whole, t)
			continue
		}
		set.Add(t, ps...)
	}
	type result struct {
		topic     string
		partition string
		status    string
	}
	var results []result
	if len(whole) > 0 {
		md, err := adm.Metadata(ctx, whole...)
		if err != nil {
			return fmt.Errorf("groups: fetching metadata: %w", err)
		}
		for _, t := range whole {
			td, ok := md.Topics[t]
			if !ok || td.Err != nil {
				// Kafka reports an unknown topic as a partition-level row.
				results = append(results, result{t, "Not Provided", "Error: : " + errText(kerr.UnknownTopicOrPartition)})
				continue
			}
			set.Add(t, td.Partitions.Numbers()...)
		}
	}
	var topErr error
	if len(set) > 0 {
		resps, err := adm.DeleteOffsets(ctx, group, set)
		switch {
		case err != nil && errors.Is(err, kerr.GroupIDNotFound):
			fmt.Fprintf(errOut, "Error: '%s' does not exist.\n", group)
			return fmt.Errorf("groups: deleting offsets: %w", err)
		case err != nil && errors.Is(err, kerr.NonEmptyGroup):
			fmt.Fprintf(errOut, "Error: Deleting offsets of a consumer group '%s' is forbidden if the group is not empty.\n", group)
			return fmt.Errorf("groups: deleting offsets: %w", err)
		case err != nil:
			return fmt.Errorf("groups: deleting offsets: %w", err)
		}
		for t, ps := range resps {
			for p, perr := range ps {
				status := "Successful"
				if perr != nil {
					status = "Error: : " + errText(perr)
					topErr = perr
				}
				results = append(results, result{t, fmt.Sprint(p), status})
			}
		}
	}
	if topErr == nil && len(results) > 0 && !slices.ContainsFunc(results, func(r result) bool { return r.status != "Successful" }) {
		fmt.Fprintf(out, "Request succeed for deleting offsets from group %s.\n", group)
	} else {
		fmt.Fprintln(errOut, "Error: Encounter some partition level error, see the follow-up details:")
	}
	slices.SortFunc(results, func(a, b result) int {
		return cmp.Compare(a.topic+a.partition, b.topic+b.partition)
	})
	const format = "\n%-30s %-15s %-15s"
	var b strings.Builder
	fmt.Fprintf(&b, format, "TOPIC", "PARTITION", "STATUS")
	for _, r := range results {
		fmt.Fprintf(&b, format, r.topic, r.partition, r.status)
	}
	b.WriteByte('\n')
	if _, err := io.WriteString(out, b.String()); err != nil {
		return fmt.Errorf("groups: writing output: %w", err)
	}
	if topErr != nil || slices.ContainsFunc(results, func(r result) bool { return r.status != "Successful" }) {
		return fmt.Errorf("groups: some offsets of %s could not be deleted", group)
	}
	return nil
}
