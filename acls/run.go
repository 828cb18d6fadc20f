package acls

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
)

// Run performs o against the cluster behind cl, writing what
// kafka-acls.sh prints to out; in answers --remove's confirmations (unless
// --force). A failure is printed as AclCommand prints it and returned as a
// *cliutil.CommandError; usage errors are returned as they are.
func Run(ctx context.Context, cl *kgo.Client, o Options, in io.Reader, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	var bs []binding
	if o.Add || o.Remove {
		var err error
		if bs, err = o.bindings(); err != nil {
			return err
		}
		if len(bs) == 0 {
			return errNoResource
		}
	}
	var err error
	switch {
	case o.Add:
		if err = o.checkAdd(bs); err != nil {
			return err
		}
		err = add(ctx, cl, o, bs, out)
	case o.Remove:
		err = remove(ctx, cl, o, bs, bufio.NewReader(in), out)
	case o.List:
		err = list(ctx, cl, o, out)
	}
	if err != nil {
		fmt.Fprintf(out, "Error while executing ACL command: %s\n", err)
		return &cliutil.CommandError{Err: err}
	}
	return nil
}

// checkAdd applies getResourceToAcls's checks: a specific pattern type,
// and entries for every resource.
func (o *Options) checkAdd(bs []binding) error {
	pt, _ := o.patternType()
	if pt != kmsg.ACLResourcePatternTypeLiteral && pt != kmsg.ACLResourcePatternTypePrefixed {
		return fmt.Errorf("A '--resource-pattern-type' value of '%s' is not valid when adding acls.", pt)
	}
	for _, b := range bs {
		if len(b.Entries) == 0 {
			return errors.New("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
		}
	}
	return nil
}

// entryList is AclCommand's rendering of a set of entries: each on its
// own line after a tab, the lines joined by newlines.
func entryList(es []entry) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = "\t" + e.String()
	}
	return strings.Join(lines, "\n")
}

func add(ctx context.Context, cl *kgo.Client, o Options, bs []binding, out io.Writer) error {
	for _, b := range bs {
		fmt.Fprintf(out, "Adding ACLs for resource `%s`: \n %s \n\n", b.Filter.pattern(), entryList(b.Entries))
		req := kmsg.NewPtrCreateACLsRequest()
		for _, e := range b.Entries {
			c := kmsg.NewCreateACLsRequestCreation()
			c.ResourceType, c.ResourceName, c.ResourcePatternType = b.Filter.Type, b.Filter.Name, b.Filter.PatternType
			c.Principal, c.Host, c.Operation, c.PermissionType = e.Principal, e.Host, e.Operation, e.Permission
			req.Creations = append(req.Creations, c)
		}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		for _, r := range resp.Results {
			if err := kafkaError(r.ErrorCode, r.ErrorMessage); err != nil {
				return err
			}
		}
	}
	return list(ctx, cl, o, out)
}

func remove(ctx context.Context, cl *kgo.Client, o Options, bs []binding, in *bufio.Reader, out io.Writer) error {
	for _, b := range bs {
		prompt := fmt.Sprintf("Are you sure you want to delete all ACLs for resource filter `%s`? (y/n)", b.Filter)
		if len(b.Entries) > 0 {
			prompt = fmt.Sprintf("Are you sure you want to remove ACLs: \n %s \n from resource filter `%s`? (y/n)", entryList(b.Entries), b.Filter)
		}
		if !o.Force {
			fmt.Fprintln(out, prompt)
			answer, _ := in.ReadString('\n')
			if !strings.EqualFold(strings.TrimSpace(answer), "y") {
				continue
			}
		}
		req := kmsg.NewPtrDeleteACLsRequest()
		newFilter := func() kmsg.DeleteACLsRequestFilter {
			f := kmsg.NewDeleteACLsRequestFilter()
			f.ResourceType, f.ResourceName, f.ResourcePatternType = b.Filter.Type, kmsg.StringPtr(b.Filter.Name), b.Filter.PatternType
			f.Operation, f.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
			return f
		}
		if len(b.Entries) == 0 {
			req.Filters = append(req.Filters, newFilter())
		}
		for _, e := range b.Entries {
			f := newFilter()
			f.Principal, f.Host, f.Operation, f.PermissionType = kmsg.StringPtr(e.Principal), kmsg.StringPtr(e.Host), e.Operation, e.Permission
			req.Filters = append(req.Filters, f)
		}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		for _, r := range resp.Results {
			if err := kafkaError(r.ErrorCode, r.ErrorMessage); err != nil {
				return err
			}
			for _, m := range r.MatchingACLs {
				if err := kafkaError(m.ErrorCode, m.ErrorMessage); err != nil {
					return err
				}
			}
		}
	}
	return list(ctx, cl, o, out)
}

// list prints the ACLs of the resources the flags name (all ACLs without
// any), per resource in the order the broker lists them; with --principal,
// per principal only that principal's entries.
func list(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	filters, err := o.filters()
	if err != nil {
		return err
	}
	var reqs []*kmsg.DescribeACLsRequest
	newReq := func() *kmsg.DescribeACLsRequest {
		r := kmsg.NewPtrDescribeACLsRequest()
		r.Operation, r.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
		return r
	}
	if len(filters) == 0 {
		r := newReq()
		r.ResourceType, r.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
		reqs = append(reqs, r)
	}
	for _, f := range filters {
		r := newReq()
		r.ResourceType, r.ResourceName, r.ResourcePatternType = f.Type, kmsg.StringPtr(f.Name), f.PatternType
		reqs = append(reqs, r)
	}
	var resources []binding // patterns (as filters) with their entries, first seen first
	for _, r := range reqs {
		resp, err := r.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		if err := kafkaError(resp.ErrorCode, resp.ErrorMessage); err != nil {
			return err
		}
		for _, res := range resp.Resources {
			p := filter{res.ResourceType, res.ResourceName, res.ResourcePatternType}
			i := 0
			for i < len(resources) && resources[i].Filter != p {
				i++
			}
			if i == len(resources) {
				resources = append(resources, binding{Filter: p})
			}
			for _, a := range res.ACLs {
				e := entry{a.Principal, a.Host, a.Operation, a.PermissionType}
				if !slices.Contains(resources[i].Entries, e) {
					resources[i].Entries = append(resources[i].Entries, e)
				}
			}
		}
	}
	print := func(bs []binding) {
		for _, b := range bs {
			fmt.Fprintf(out, "Current ACLs for resource `%s`: \n %s \n\n", b.Filter.pattern(), entryList(b.Entries))
		}
	}
	if len(o.ListPrincipals) == 0 {
		print(resources)
		return nil
	}
	for _, p := range o.ListPrincipals {
		principal, err := parsePrincipal(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "ACLs for principal `%s`\n", principal)
		var mine []binding
		for _, b := range resources {
			var es []entry
			for _, e := range b.Entries {
				if e.Principal == principal {
					es = append(es, e)
				}
			}
			if len(es) > 0 {
				mine = append(mine, binding{b.Filter, es})
			}
		}
		print(mine)
	}
	return nil
}

// brokerError is an error code a broker answered, with its message.
type brokerError struct {
	code *kerr.Error
	msg  string
}

func (e *brokerError) Error() string { return e.code.Message + ": " + e.msg }
func (e *brokerError) Unwrap() error { return e.code }

// kafkaError is a response's error code as an error with the broker's
// message (the code's description without one); nil for no error.
func kafkaError(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	ke, ok := err.(*kerr.Error)
	if !ok {
		return err
	}
	be := &brokerError{code: ke, msg: ke.Description}
	if msg != nil && *msg != "" {
		be.msg = *msg
	}
	return be
}

// pattern is the filter as the ResourcePattern it names (a specific
// pattern type), as Kafka prints it.
func (f filter) pattern() string {
	return fmt.Sprintf("ResourcePattern(resourceType=%s, name=%s, patternType=%s)", f.Type, f.Name, f.PatternType)
}

// String is ResourcePatternFilter.toString (the same text).
func (f filter) String() string { return f.pattern() }

// String is AccessControlEntry.toString.
func (e entry) String() string {
	return fmt.Sprintf("(principal=%s, host=%s, operation=%s, permissionType=%s)", e.Principal, e.Host, e.Operation, e.Permission)
}
