package acls

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/aclname"
)

// Options are kafka-acls.sh's flags, as parsed. Lists keep the order given
// on the command line.
type Options struct {
	Add, Remove, List bool

	Topics           []string // --topic
	Groups           []string // --group
	TransactionalIDs []string // --transactional-id
	DelegationTokens []string // --delegation-token
	Cluster          bool     // --cluster
	PatternType      string   // --resource-pattern-type; "" is literal

	AllowPrincipals []string // --allow-principal
	DenyPrincipals  []string // --deny-principal
	AllowHosts      []string // --allow-host (default * with --allow-principal)
	DenyHosts       []string // --deny-host (default * with --deny-principal)
	Operations      []string // --operation; none means All
	ListPrincipals  []string // --principal (with --list)

	Producer, Consumer, Idempotent bool
	Force                          bool
}

// Validate applies AclCommand's checkArgs.
func (o *Options) Validate() error {
	n := 0
	for _, b := range []bool{o.Add, o.Remove, o.List} {
		if b {
			n++
		}
	}
	if n != 1 {
		return errors.New("Command must include exactly one action: --list, --add, --remove. ")
	}
	invalid := func(used string, set bool, others map[string]bool) error {
		if !set {
			return nil
		}
		for _, name := range []string{"producer", "consumer", "allow-host", "allow-principal", "deny-host", "deny-principal", "operation"} {
			if others[name] {
				return fmt.Errorf("Option \"[%s]\" can't be used with option \"[%s]\"", used, name)
			}
		}
		return nil
	}
	if err := invalid("list", o.List, map[string]bool{"producer": o.Producer, "consumer": o.Consumer,
		"allow-host": len(o.AllowHosts) > 0, "allow-principal": len(o.AllowPrincipals) > 0,
		"deny-host": len(o.DenyHosts) > 0, "deny-principal": len(o.DenyPrincipals) > 0}); err != nil {
		return err
	}
	// --producer and --consumer infer the operations and allow only.
	roleConflicts := map[string]bool{"operation": len(o.Operations) > 0, "deny-principal": len(o.DenyPrincipals) > 0, "deny-host": len(o.DenyHosts) > 0}
	if err := invalid("producer", o.Producer, roleConflicts); err != nil {
		return err
	}
	if err := invalid("consumer", o.Consumer, roleConflicts); err != nil {
		return err
	}
	if len(o.ListPrincipals) > 0 && !o.List {
		return errors.New("The --principal option is only available if --list is set")
	}
	if o.Producer && len(o.Topics) == 0 {
		return errors.New("With --producer you must specify a --topic")
	}
	if o.Idempotent && !o.Producer {
		return errors.New("The --idempotent option is only available if --producer is set")
	}
	if o.Consumer && (len(o.Topics) == 0 || len(o.Groups) == 0 || (!o.Producer && (o.Cluster || len(o.TransactionalIDs) > 0))) {
		return errors.New("With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.")
	}
	if _, err := o.patternType(); err != nil {
		return err
	}
	return nil
}

// patternType parses --resource-pattern-type (any, match, literal,
// prefixed; case ignored, as joptsimple's EnumConverter).
func (o *Options) patternType() (kmsg.ACLResourcePatternType, error) {
	if o.PatternType == "" {
		return kmsg.ACLResourcePatternTypeLiteral, nil
	}
	for _, pt := range []kmsg.ACLResourcePatternType{kmsg.ACLResourcePatternTypeAny, kmsg.ACLResourcePatternTypeMatch,
		kmsg.ACLResourcePatternTypeLiteral, kmsg.ACLResourcePatternTypePrefixed} {
		if strings.EqualFold(o.PatternType, pt.String()) {
			return pt, nil
		}
	}
	return 0, fmt.Errorf("Unknown resource-pattern-type: %s", o.PatternType)
}

// filter is a ResourcePatternFilter.
type filter struct {
	Type        kmsg.ACLResourceType
	Name        string
	PatternType kmsg.ACLResourcePatternType
}

// entry is an AccessControlEntry.
type entry struct {
	Principal  string
	Host       string
	Operation  kmsg.ACLOperation
	Permission kmsg.ACLPermissionType
}

// clusterName is the one name of the cluster resource.
const clusterName = "kafka-cluster"

// filters are the resources the flags name (getResourceFilter), in
// command-line order: topics, the cluster (only for literal patterns),
// groups, transactional ids, delegation tokens.
func (o *Options) filters() ([]filter, error) {
	pt, err := o.patternType()
	if err != nil {
		return nil, err
	}
	var out []filter
	add := func(rt kmsg.ACLResourceType, name string) {
		f := filter{rt, name, pt}
		for _, g := range out {
			if g == f {
				return
			}
		}
		out = append(out, f)
	}
	for _, t := range o.Topics {
		add(kmsg.ACLResourceTypeTopic, strings.TrimSpace(t))
	}
	if pt == kmsg.ACLResourcePatternTypeLiteral && (o.Cluster || o.Idempotent) {
		add(kmsg.ACLResourceTypeCluster, clusterName)
	}
	for _, g := range o.Groups {
		add(kmsg.ACLResourceTypeGroup, strings.TrimSpace(g))
	}
	for _, id := range o.TransactionalIDs {
		add(kmsg.ACLResourceTypeTransactionalId, id) // not trimmed, as Kafka
	}
	for _, tok := range o.DelegationTokens {
		add(kmsg.ACLResourceTypeDelegationToken, strings.TrimSpace(tok))
	}
	return out, nil
}

var errNoResource = errors.New("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>")

// parsePrincipal is SecurityUtils.parseKafkaPrincipal: Type:Name.
func parsePrincipal(s string) (string, error) {
	s = strings.TrimSpace(s)
	if typ, _, ok := strings.Cut(s, ":"); !ok || typ == "" {
		return "", fmt.Errorf("expected a string in format principalType:principalName but got %s", s)
	}
	return s, nil
}

// entries builds the entries for operations: every allowed principal with
// every operation from every allowed host, then the same for denials
// (getAcl). Hosts default to * when principals are given.
func (o *Options) entries(ops []kmsg.ACLOperation) ([]entry, error) {
	var out []entry
	for _, side := range []struct {
		principals, hosts []string
		perm              kmsg.ACLPermissionType
	}{{o.AllowPrincipals, o.AllowHosts, kmsg.ACLPermissionTypeAllow}, {o.DenyPrincipals, o.DenyHosts, kmsg.ACLPermissionTypeDeny}} {
		hosts := side.hosts
		if len(hosts) == 0 {
			hosts = []string{"*"}
		}
		for _, p := range side.principals {
			principal, err := parsePrincipal(p)
			if err != nil {
				return nil, err
			}
			for _, op := range ops {
				for _, h := range hosts {
					e := entry{principal, strings.TrimSpace(h), op, side.perm}
					if !slices.Contains(out, e) {
						out = append(out, e)
					}
				}
			}
		}
	}
	return out, nil
}

// binding is a resource and the entries for it.
type binding struct {
	Filter  filter
	Entries []entry
}

// bindings is getResourceFilterToAcls: the entries the flags give each
// resource, with --producer and --consumer expanding to their operations.
// An unknown operation, or one the resource type does not support, is
// refused as AclCommand's validateOperation refuses it.
func (o *Options) bindings() ([]binding, error) {
	filters, err := o.filters()
	if err != nil {
		return nil, err
	}
	var out []binding
	put := func(f filter, es []entry) {
		for i := range out {
			if out[i].Filter == f {
				for _, e := range es {
					if !slices.Contains(out[i].Entries, e) {
						out[i].Entries = append(out[i].Entries, e)
					}
				}
				return
			}
		}
		out = append(out, binding{f, es})
	}
	of := func(rt kmsg.ACLResourceType) []filter {
		var fs []filter
		for _, f := range filters {
			if f.Type == rt {
				fs = append(fs, f)
			}
		}
		return fs
	}
	withOps := func(ops ...kmsg.ACLOperation) ([]entry, error) { return o.entries(ops) }
	if !o.Producer && !o.Consumer {
		var ops []kmsg.ACLOperation
		for _, name := range o.Operations {
			op, ok := aclname.Parse(aclname.Operations, strings.TrimSpace(name))
			if !ok {
				op = kmsg.ACLOperationUnknown
			}
			ops = append(ops, op)
		}
		if len(ops) == 0 {
			ops = []kmsg.ACLOperation{kmsg.ACLOperationAll}
		}
		es, err := withOps(ops...)
		if err != nil {
			return nil, err
		}
		for _, f := range filters {
			put(f, es)
		}
	}
	if o.Producer {
		topicACLs, err := withOps(kmsg.ACLOperationWrite, kmsg.ACLOperationDescribe, kmsg.ACLOperationCreate)
		if err != nil {
			return nil, err
		}
		txnACLs, _ := withOps(kmsg.ACLOperationWrite, kmsg.ACLOperationDescribe)
		for _, f := range of(kmsg.ACLResourceTypeTopic) {
			put(f, topicACLs)
		}
		for _, f := range of(kmsg.ACLResourceTypeTransactionalId) {
			put(f, txnACLs)
		}
		if o.Idempotent {
			es, _ := withOps(kmsg.ACLOperationIdempotentWrite)
			put(filter{kmsg.ACLResourceTypeCluster, clusterName, kmsg.ACLResourcePatternTypeLiteral}, es)
		}
	}
	if o.Consumer {
		topicACLs, err := withOps(kmsg.ACLOperationRead, kmsg.ACLOperationDescribe)
		if err != nil {
			return nil, err
		}
		groupACLs, _ := withOps(kmsg.ACLOperationRead)
		for _, f := range of(kmsg.ACLResourceTypeTopic) {
			put(f, topicACLs)
		}
		for _, f := range of(kmsg.ACLResourceTypeGroup) {
			put(f, groupACLs)
		}
	}
	for _, b := range out {
		valid := append(aclname.SupportedOperations(b.Filter.Type), kmsg.ACLOperationAll)
		for _, e := range b.Entries {
			if !slices.Contains(valid, e.Operation) {
				names := make([]string, len(valid))
				for i, op := range valid {
					names[i] = aclname.Pascal(op.String())
				}
				return nil, fmt.Errorf("ResourceType %s only supports operations %s", b.Filter.Type, strings.Join(names, ", "))
			}
		}
	}
	return out, nil
}
