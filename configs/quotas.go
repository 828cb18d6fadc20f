package configs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/javanum"
)

// Client quota keys (Kafka's QuotaConfigs) and SCRAM credential keys,
// which share a user's entity.
var (
	quotaKeys = []string{"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"}
	scramKeys = []string{"SCRAM-SHA-256", "SCRAM-SHA-512"}
)

// isQuota reports whether the command is about users or clients.
func (o *Options) isQuota() bool {
	for _, t := range o.types() {
		if t == EntityUsers || t == EntityClients {
			return true
		}
	}
	return false
}

// types are the entity types in command-line order; names the entity
// names matched to them ("" for a default). Options built without the
// ordered lists (tests) fall back to the single type and name.
func (o *Options) types() []string {
	if len(o.Types) > 0 {
		return o.Types
	}
	if o.EntityType == "" {
		return nil
	}
	return []string{o.EntityType}
}

func (o *Options) names() []string {
	switch {
	case len(o.Names) > 0:
		return o.Names
	case o.NameSet:
		return []string{o.EntityName}
	case o.EntityDefault:
		return []string{""}
	}
	return nil
}

// validateQuotas is ConfigCommand's check of user and client entities
// with --bootstrap-server.
func (o *Options) validateQuotas() error {
	types, names := o.types(), o.names()
	seen := map[string]bool{}
	var dups []string
	for _, t := range types {
		if seen[t] {
			dups = append(dups, t)
		}
		seen[t] = true
	}
	if len(dups) > 0 {
		return fmt.Errorf("Duplicate entity type(s) specified: %s", strings.Join(dups, ","))
	}
	for _, t := range types {
		switch t {
		case EntityTopics, EntityBrokers, EntityUsers, EntityClients:
		default:
			return fmt.Errorf("Invalid entity type %s, the entity type must be one of topics, brokers, users, clients with a --bootstrap-server argument", t)
		}
	}
	if len(types) > 1 && !(len(types) == 2 && seen[EntityUsers] && seen[EntityClients]) {
		return errors.New("Only 'users' and 'clients' entity types may be specified together")
	}
	if len(names) > len(types) {
		return errors.New("More entity names specified than entity types")
	}
	if o.Alter {
		if len(names) == 0 {
			return errors.New("an entity-name or default entity must be specified with --alter of users, clients, brokers or ips")
		}
		if len(names) != len(types) {
			return errors.New("Exactly one entity name must be specified for every entity type")
		}
	}
	if err := o.validateChanges(); err != nil {
		return err
	}
	if o.All {
		return errors.New("--all is only valid with --describe of topics or brokers")
	}
	return nil
}

// quotaEntityType is the wire's entity type of a command-line type.
func quotaEntityType(t string) string {
	if t == EntityUsers {
		return "user"
	}
	return "client-id"
}

// quotaFilter is ConfigCommand's filter: one component per type, exact for
// a name, the default for "", any when no name goes with the type;
// strict, so only entities of exactly these types match.
func quotaFilter(o Options) *kmsg.DescribeClientQuotasRequest {
	req := kmsg.NewPtrDescribeClientQuotasRequest()
	req.Strict = true
	names := o.names()
	for i, t := range o.types() {
		c := kmsg.NewDescribeClientQuotasRequestComponent()
		c.EntityType = quotaEntityType(t)
		switch {
		case i >= len(names):
			c.MatchType = kmsg.QuotasMatchTypeAny
		case names[i] == "":
			c.MatchType = kmsg.QuotasMatchTypeDefault
		default:
			c.MatchType, c.Match = kmsg.QuotasMatchTypeExact, kmsg.StringPtr(names[i])
		}
		req.Components = append(req.Components, c)
	}
	return req
}

func describeQuotas(ctx context.Context, cl *kgo.Client, o Options) ([]kmsg.DescribeClientQuotasResponseEntry, error) {
	resp, err := quotaFilter(o).RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, withMessage(err, resp.ErrorMessage)
	}
	entries := resp.Entries
	slices.SortFunc(entries, func(a, b kmsg.DescribeClientQuotasResponseEntry) int {
		return strings.Compare(quotaEntityString(a.Entity), quotaEntityString(b.Entity))
	})
	return entries, nil
}

// quotaEntityString names an entity as kafka-configs prints it:
// "user-principal 'alice', client-id 'c1'", "the default user-principal".
func quotaEntityString(parts []kmsg.DescribeClientQuotasResponseEntryEntity) string {
	var user, client []string
	for _, p := range parts {
		typ := p.Type
		switch typ {
		case "user":
			typ = "user-principal"
		case "client-id":
		default:
			continue
		}
		s := "the default " + typ
		if p.Name != nil {
			s = typ + " '" + *p.Name + "'"
		}
		if p.Type == "user" {
			user = append(user, s)
		} else {
			client = append(client, s)
		}
	}
	return strings.Join(append(user, client...), ", ")
}

// describeClientQuotas prints, per entity, Kafka's line
// "Quota configs for user-principal 'alice' are producer_byte_rate=1048576.0".
func describeClientQuotas(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	entries, err := describeQuotas(ctx, cl, o)
	if err != nil {
		return err
	}
	for _, e := range entries {
		vals := slices.Clone(e.Values)
		slices.SortFunc(vals, func(a, b kmsg.DescribeClientQuotasResponseEntryValue) int { return cmp.Compare(a.Key, b.Key) })
		kv := make([]string, len(vals))
		for i, v := range vals {
			kv[i] = v.Key + "=" + javanum.FormatDouble(v.Value)
		}
		fmt.Fprintf(out, "Quota configs for %s are %s\n", quotaEntityString(e.Entity), strings.Join(kv, ", "))
	}
	return nil
}

// userOptions is o as the SCRAM calls see it: one user entity, by name or
// the default.
func userOptions(o Options) Options {
	u := o
	u.EntityType, u.EntityName, u.NameSet, u.EntityDefault = EntityUsers, "", false, false
	if names := o.names(); len(names) > 0 {
		if names[0] == "" {
			u.EntityDefault = true
		} else {
			u.EntityName, u.NameSet = names[0], true
		}
	}
	return u
}

// scalaSet and scalaList print names as Kafka's error messages do.
func scalaSet(keys []string) string  { return "Set(" + strings.Join(keys, ", ") + ")" }
func scalaList(keys []string) string { return "List(" + strings.Join(keys, ", ") + ")" }

// alterClientQuotas is ConfigCommand's alter of users and clients: quota
// keys only (SCRAM credentials go through their own API), deleting only
// keys that are set, values parsed as doubles, one AlterClientQuotas
// entry for the whole entity.
func alterClientQuotas(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	add, order, err := addedConfigs(o)
	if err != nil {
		return err
	}
	del := deleteKeys(o.DeleteConfig)
	types, names := o.types(), o.names()
	classify := func(keys []string) (quota, scram, unknown []string) {
		for _, k := range keys {
			switch {
			case slices.Contains(quotaKeys, k):
				quota = append(quota, k)
			case slices.Contains(scramKeys, k):
				scram = append(scram, k)
			default:
				unknown = append(unknown, k)
			}
		}
		return quota, scram, unknown
	}
	addQuota, addScram, addUnknown := classify(order)
	delQuota, delScram, delUnknown := classify(del)
	if types[0] == EntityClients || len(types) == 2 {
		if len(addUnknown)+len(addScram) > 0 {
			return fmt.Errorf("Only quota configs can be added for '%s' using --bootstrap-server. Unexpected config names: %s", EntityClients, scalaSet(append(addUnknown, addScram...)))
		}
		if len(delUnknown)+len(delScram) > 0 {
			return fmt.Errorf("Only quota configs can be deleted for '%s' using --bootstrap-server. Unexpected config names: %s", EntityClients, scalaList(append(delUnknown, delScram...)))
		}
	} else {
		if len(addUnknown) > 0 {
			return fmt.Errorf("Only quota and SCRAM credential configs can be added for '%s' using --bootstrap-server. Unexpected config names: %s", EntityUsers, scalaSet(addUnknown))
		}
		if len(delUnknown) > 0 {
			return fmt.Errorf("Only quota and SCRAM credential configs can be deleted for '%s' using --bootstrap-server. Unexpected config names: %s", EntityUsers, scalaList(delUnknown))
		}
		if len(addScram)+len(delScram) > 0 {
			if slices.Contains(names, "") {
				return errors.New("The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using --bootstrap-server.")
			}
			if len(addQuota)+len(delQuota) > 0 {
				return fmt.Errorf("Cannot alter both quota and SCRAM credential configs simultaneously for '%s' using --bootstrap-server.", EntityUsers)
			}
			return alterUser(ctx, cl, userOptions(o), add, order, del, out)
		}
	}

	current, err := describeQuotas(ctx, cl, o)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	if len(current) > 0 {
		for _, v := range current[0].Values {
			set[v.Key] = true
		}
	}
	if err := deletingUnset(del, set); err != nil {
		return err
	}

	entry := kmsg.NewAlterClientQuotasRequestEntry()
	for i, t := range types {
		p := kmsg.NewAlterClientQuotasRequestEntryEntity()
		p.Type = quotaEntityType(t)
		if names[i] != "" {
			p.Name = kmsg.StringPtr(names[i])
		}
		entry.Entity = append(entry.Entity, p)
	}
	for _, k := range order {
		v, err := strconv.ParseFloat(strings.TrimSpace(add[k]), 64)
		if err != nil {
			return fmt.Errorf("Cannot parse quota configuration value for %s: %s", k, add[k])
		}
		op := kmsg.NewAlterClientQuotasRequestEntryOp()
		op.Key, op.Value = k, v
		entry.Ops = append(entry.Ops, op)
	}
	for _, k := range del {
		op := kmsg.NewAlterClientQuotasRequestEntryOp()
		op.Key, op.Remove = k, true
		entry.Ops = append(entry.Ops, op)
	}
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.Entries = append(req.Entries, entry)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if len(resp.Entries) != 1 {
		return fmt.Errorf("AlterClientQuotas answered %d entries for one", len(resp.Entries))
	}
	if err := kerr.ErrorForCode(resp.Entries[0].ErrorCode); err != nil {
		return withMessage(err, resp.Entries[0].ErrorMessage)
	}
	if names[0] != "" {
		fmt.Fprintf(out, "Completed updating config for %s %s.\n", strings.TrimSuffix(types[0], "s"), names[0])
	} else {
		fmt.Fprintf(out, "Completed updating default config for %s in the cluster.\n", types[0])
	}
	return nil
}

// sortedKeys lists a map's keys in order (for --add-config-file).
func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
