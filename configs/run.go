package configs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/javaprops"
)

// Run performs o against the cluster behind cl, writing the tool's output
// to out. args is the command line, quoted in Kafka's error line.
func Run(ctx context.Context, cl *kgo.Client, o Options, args []string, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	var err error
	switch {
	case o.isQuota() && o.Describe:
		// Users print their quotas, then their SCRAM credentials, as
		// kafka-configs does.
		err = describeClientQuotas(ctx, cl, o, out)
		if types := o.types(); err == nil && len(types) == 1 && types[0] == EntityUsers {
			err = describeUsers(ctx, cl, userOptions(o), out)
		}
	case o.isQuota():
		err = alterClientQuotas(ctx, cl, o, out)
	case o.Describe:
		err = describe(ctx, cl, o, out)
	default:
		err = alter(ctx, cl, o, out)
	}
	if err != nil {
		fmt.Fprintf(out, "Error while executing config command with args '%s'\n%s\n", strings.Join(args, " "), err)
		return &cliutil.CommandError{Err: err}
	}
	return nil
}

// resourceType maps an entity type onto DescribeConfigs' resource type.
func resourceType(entity string) kmsg.ConfigResourceType {
	if entity == EntityTopics {
		return kmsg.ConfigResourceTypeTopic
	}
	return kmsg.ConfigResourceTypeBroker
}

// dynamicSource is what --describe without --all shows: the entries set
// by a dynamic override of this entity.
func dynamicSource(o Options, name string) kmsg.ConfigSource {
	switch {
	case o.EntityType == EntityTopics:
		return kmsg.ConfigSourceDynamicTopicConfig
	case name == "":
		return kmsg.ConfigSourceDynamicDefaultBrokerConfig
	}
	return kmsg.ConfigSourceDynamicBrokerConfig
}

func describe(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	names, err := entities(ctx, cl, o)
	if err != nil {
		return err
	}
	for _, name := range names {
		entries, err := describeOne(ctx, cl, o.EntityType, name)
		if err != nil {
			return err
		}
		switch {
		case o.EntityType == EntityBrokers && name == "":
			fmt.Fprintf(out, "Default configs for brokers in the cluster are:\n")
		case o.All:
			fmt.Fprintf(out, "All configs for %s %s are:\n", strings.TrimSuffix(o.EntityType, "s"), name)
		default:
			fmt.Fprintf(out, "Dynamic configs for %s %s are:\n", strings.TrimSuffix(o.EntityType, "s"), name)
		}
		src := dynamicSource(o, name)
		for _, e := range entries {
			if !o.All && e.Source != src {
				continue
			}
			syns := make([]string, len(e.ConfigSynonyms))
			for i, s := range e.ConfigSynonyms {
				syns[i] = fmt.Sprintf("%s:%s=%s", s.Source, s.Name, javaString(s.Value))
			}
			fmt.Fprintf(out, "  %s=%s sensitive=%t synonyms={%s}\n", e.Name, javaString(e.Value), e.IsSensitive, strings.Join(syns, ", "))
		}
	}
	return nil
}

// javaString prints a nullable string as Java's string concatenation does.
func javaString(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// entities lists what --describe covers: the named entity, or every topic
// (internal ones too), or every broker and then the cluster default.
func entities(ctx context.Context, cl *kgo.Client, o Options) ([]string, error) {
	if o.NameSet {
		return []string{o.EntityName}, nil
	}
	if o.EntityDefault {
		return []string{""}, nil
	}
	req := kmsg.NewPtrMetadataRequest()
	if o.EntityType == EntityBrokers {
		req.Topics = []kmsg.MetadataRequestTopic{}
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	var names []string
	if o.EntityType == EntityTopics {
		for _, t := range resp.Topics {
			if t.Topic != nil && t.ErrorCode == 0 {
				names = append(names, *t.Topic)
			}
		}
		slices.Sort(names)
		return names, nil
	}
	ids := make([]int, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		ids = append(ids, int(b.NodeID))
	}
	slices.Sort(ids)
	for _, id := range ids {
		names = append(names, strconv.Itoa(id))
	}
	return append(names, ""), nil
}

// describeOne asks DescribeConfigs (with synonyms) for one entity and
// returns its entries sorted by name. franz-go sends a broker's resource to
// that broker.
func describeOne(ctx context.Context, cl *kgo.Client, entity, name string) ([]kmsg.DescribeConfigsResponseResourceConfig, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms = true
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = resourceType(entity), name
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("DescribeConfigs answered %d resources for one", len(resp.Resources))
	}
	res := resp.Resources[0]
	if err := kerr.ErrorForCode(res.ErrorCode); err != nil {
		return nil, withMessage(err, res.ErrorMessage)
	}
	entries := res.Configs
	slices.SortFunc(entries, func(a, b kmsg.DescribeConfigsResponseResourceConfig) int { return strings.Compare(a.Name, b.Name) })
	return entries, nil
}

func withMessage(err error, msg *string) error {
	if msg != nil && *msg != "" {
		return fmt.Errorf("%w: %s", err, *msg)
	}
	return err
}

// deletingUnset refuses, as Kafka does, to delete keys that are not set.
func deletingUnset(del []string, set map[string]bool) error {
	var missing []string
	for _, k := range del {
		if !set[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("Invalid config(s): %s", strings.Join(missing, ","))
	}
	return nil
}

// addedConfigs parses --add-config (in its order) or --add-config-file
// (sorted by key).
func addedConfigs(o Options) (add map[string]string, order []string, err error) {
	switch {
	case o.AddConfig != "":
		return ParseAddConfig(o.AddConfig)
	case o.AddFile != "":
		if add, err = javaprops.Parse(strings.NewReader(o.AddFile)); err != nil {
			return nil, nil, fmt.Errorf("--add-config-file: %w", err)
		}
		return add, sortedKeys(add), nil
	}
	return nil, nil, nil
}

// changes parses what --alter adds (in order) and deletes, refusing a key
// given to both.
func changes(o Options) (add map[string]string, order, del []string, err error) {
	if add, order, err = addedConfigs(o); err != nil {
		return nil, nil, nil, err
	}
	del = deleteKeys(o.DeleteConfig)
	for _, k := range del {
		if _, both := add[k]; both {
			return nil, nil, nil, fmt.Errorf("Invalid config(s): %s: set and deleted in one command", k)
		}
	}
	return add, order, del, nil
}

func alter(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	add, order, del, err := changes(o)
	if err != nil {
		return err
	}
	if o.EntityType == EntityUsers {
		return alterUser(ctx, cl, o, add, order, del, out)
	}
	name := o.EntityName
	if o.EntityDefault {
		name = ""
	}
	if o.EntityType == EntityTopics && len(del) > 0 {
		// Kafka refuses to delete a topic override that is not set.
		entries, err := describeOne(ctx, cl, o.EntityType, name)
		if err != nil {
			return err
		}
		set := map[string]bool{}
		for _, e := range entries {
			if e.Source == kmsg.ConfigSourceDynamicTopicConfig {
				set[e.Name] = true
			}
		}
		if err := deletingUnset(del, set); err != nil {
			return err
		}
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = resourceType(o.EntityType), name
	for _, k := range order {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = k, kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr(add[k])
		r.Configs = append(r.Configs, c)
	}
	for _, k := range del {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op = k, kmsg.IncrementalAlterConfigOpDelete
		r.Configs = append(r.Configs, c)
	}
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if len(resp.Resources) != 1 {
		return errors.New("IncrementalAlterConfigs answered no resource")
	}
	if err := kerr.ErrorForCode(resp.Resources[0].ErrorCode); err != nil {
		return withMessage(err, resp.Resources[0].ErrorMessage)
	}
	switch {
	case o.EntityType == EntityTopics:
		fmt.Fprintf(out, "Completed updating config for topic %s.\n", name)
	case name == "":
		fmt.Fprintf(out, "Completed updating default config for brokers in the cluster.\n")
	default:
		fmt.Fprintf(out, "Completed updating config for broker %s.\n", name)
	}
	return nil
}
