package configs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// scramMechanisms are the SCRAM config keys of a user.
var scramMechanisms = map[string]kadm.ScramMechanism{
	"SCRAM-SHA-256": kadm.ScramSha256,
	"SCRAM-SHA-512": kadm.ScramSha512,
}

const (
	defaultScramIterations = 4096
	minScramIterations     = 4096
)

// scramCredentialPattern is ConfigCommand's [iterations=N,]password=P.
var scramCredentialPattern = regexp.MustCompile(`^(?:iterations=(-?[0-9]*),)?password=(.*)$`)

// parseScramCredential reads a SCRAM config value.
func parseScramCredential(mechanism, value string) (int32, string, error) {
	m := scramCredentialPattern.FindStringSubmatch(value)
	if m == nil {
		return 0, "", fmt.Errorf("Invalid credential property %s=%s", mechanism, value)
	}
	iterations := defaultScramIterations
	if m[1] != "" && m[1] != "-1" {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, "", fmt.Errorf("Invalid credential property %s=%s", mechanism, value)
		}
		iterations = n
	}
	if iterations < minScramIterations {
		return 0, "", fmt.Errorf("Iterations %d is less than the minimum %d required for %s", iterations, minScramIterations, mechanism)
	}
	return int32(iterations), m[2], nil
}

// alterUser applies --add-config and --delete-config of SCRAM keys only
// (alterClientQuotas has sorted them from quota keys) to one user's SCRAM
// credentials (AlterUserScramCredentials, KIP-554). The client salts the
// password (PBKDF2) and sends the salted password, never the password itself.
func alterUser(ctx context.Context, cl *kgo.Client, o Options, add map[string]string, addScram, delScram []string, out io.Writer) error {
	if o.EntityDefault {
		return errors.New("The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using --bootstrap-server.")
	}
	var ups []kadm.UpsertSCRAM
	for _, k := range addScram {
		iterations, password, err := parseScramCredential(k, add[k])
		if err != nil {
			return err
		}
		ups = append(ups, kadm.UpsertSCRAM{User: o.EntityName, Mechanism: scramMechanisms[k], Iterations: iterations, Password: password})
	}
	var dels []kadm.DeleteSCRAM
	for _, k := range delScram {
		dels = append(dels, kadm.DeleteSCRAM{User: o.EntityName, Mechanism: scramMechanisms[k]})
	}
	res, err := kadm.NewClient(cl).AlterUserSCRAMs(ctx, dels, ups)
	if err != nil {
		return err
	}
	for _, r := range res.Sorted() {
		if r.Err != nil {
			if r.ErrMessage != "" {
				return fmt.Errorf("%w: %s", r.Err, r.ErrMessage)
			}
			return r.Err
		}
	}
	fmt.Fprintf(out, "Completed updating config for user %s.\n", o.EntityName)
	return nil
}

// describeUsers prints each user's SCRAM credentials (mechanism and
// iterations, never the secret): the named user, or every user that has
// credentials. Users without credentials print nothing, as in Kafka; the
// default user has no credentials.
func describeUsers(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	if o.EntityDefault {
		return nil
	}
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	if o.NameSet {
		u := kmsg.NewDescribeUserSCRAMCredentialsRequestUser()
		u.Name = o.EntityName
		req.Users = append(req.Users, u)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return withMessage(err, resp.ErrorMessage)
	}
	for _, r := range resp.Results {
		if r.ErrorCode == kerr.ResourceNotFound.Code {
			continue
		}
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := err.(*kerr.Error).Description
			if r.ErrorMessage != nil {
				msg = *r.ErrorMessage
			}
			fmt.Fprintf(out, "Error retrieving SCRAM credential configs for user-principal '%s': %s: %s\n", r.User, javaExceptionName(err.(*kerr.Error)), msg)
			continue
		}
		infos := make([]string, 0, len(r.CredentialInfos))
		for _, ci := range r.CredentialInfos {
			infos = append(infos, fmt.Sprintf("%s=iterations=%d", kadm.ScramMechanism(ci.Mechanism), ci.Iterations))
		}
		fmt.Fprintf(out, "SCRAM credential configs for user-principal '%s' are %s\n", r.User, strings.Join(infos, ", "))
	}
	return nil
}

// javaExceptionName is the simple name of the Java exception Kafka's
// clients raise for an error code: DUPLICATE_RESOURCE is
// DuplicateResourceException.
func javaExceptionName(e *kerr.Error) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(e.Message), "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String() + "Exception"
}
