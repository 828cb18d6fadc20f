package main

import (
	"errors"

	"github.com/spf13/cobra"

	"kafgo/acls"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newACLsCommand) }

func newACLsCommand() *cobra.Command {
	var (
		bootstrap, commandConfig, authorizerProps string
		o                                         acls.Options
	)
	cmd := &cobra.Command{
		Use:   "acls",
		Short: "Add, remove or list ACLs (kafka-acls)",
		Long: `Manage the ACLs of brokers running the ACL authorizer
(authorizer.class.name=kafka.security.authorizer.AclAuthorizer), with the
flags and output of Kafka's kafka-acls.sh. The tool talks to the brokers
(CreateAcls, DeleteAcls, DescribeAcls), so it needs Alter (Describe to
list) on the cluster, or a super user; --command-config carries the
client security settings.

Exactly one of --add, --remove, --list. Resources: --topic, --group,
--transactional-id, --delegation-token (repeatable; '*' means all) and
--cluster. --resource-pattern-type is literal (the default) or prefixed
for --add; listing and removing also take any (exact name, any pattern
type) and match (every ACL that applies to the named resource).
--operation is repeatable and defaults to All; hosts default to '*'.

Examples:
  kafgo acls --bootstrap-server localhost:9092 --add --allow-principal User:alice --operation Write --topic orders
  kafgo acls --bootstrap-server localhost:9092 --add --allow-principal User:bob --producer --topic orders- --resource-pattern-type prefixed --idempotent
  kafgo acls --bootstrap-server localhost:9092 --add --allow-principal User:carol --consumer --topic orders --group billing
  kafgo acls --bootstrap-server localhost:9092 --list --topic orders --resource-pattern-type match
  kafgo acls --bootstrap-server localhost:9092 --list --principal User:alice
  kafgo acls --bootstrap-server localhost:9092 --remove --force --allow-principal User:alice --operation Write --topic orders`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if authorizerProps != "" {
				return errors.New("--authorizer-properties is not supported: kafgo acls manages ACLs through the brokers; use --bootstrap-server")
			}
			if bootstrap == "" {
				return errors.New("--bootstrap-server must be specified")
			}
			if err := o.Validate(); err != nil {
				return err
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return acls.Run(cmd.Context(), cl, o, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: A list of host/port pairs to use for establishing the connection to the Kafka cluster.")
	f.StringVar(&commandConfig, "command-config", "", "A property file containing configs to be passed to Admin Client.")
	f.StringVar(&authorizerProps, "authorizer-properties", "", "Not supported: kafgo acls works through the brokers (--bootstrap-server).")
	f.BoolVar(&o.Add, "add", false, "Indicates you are trying to add ACLs.")
	f.BoolVar(&o.Remove, "remove", false, "Indicates you are trying to remove ACLs.")
	f.BoolVar(&o.List, "list", false, "List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to specify a resource.")
	f.StringArrayVar(&o.Topics, "topic", nil, "topic to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all topics.")
	f.BoolVar(&o.Cluster, "cluster", false, "Add/Remove cluster ACLs.")
	f.StringArrayVar(&o.Groups, "group", nil, "Consumer Group to which the ACLs should be added or removed. A value of '*' indicates the ACLs should apply to all groups.")
	f.StringArrayVar(&o.TransactionalIDs, "transactional-id", nil, "The transactionalId to which ACLs should be added or removed. A value of '*' indicates the ACLs should apply to all transactionalIds.")
	f.StringArrayVar(&o.DelegationTokens, "delegation-token", nil, "Delegation token to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all tokens.")
	f.StringVar(&o.PatternType, "resource-pattern-type", "", "The type of the resource pattern or pattern filter: literal (default) or prefixed when adding; any or match also when listing or removing.")
	f.StringArrayVar(&o.AllowPrincipals, "allow-principal", nil, "principal is in principalType:name format. For example, User:'*' is the wild card indicating all users.")
	f.StringArrayVar(&o.DenyPrincipals, "deny-principal", nil, "principal is in principalType:name format. DENY RULES TAKE PRECEDENCE OVER ALLOW RULES.")
	f.StringArrayVar(&o.ListPrincipals, "principal", nil, "List ACLs for the specified principal (principalType:name). Repeatable.")
	f.StringArrayVar(&o.AllowHosts, "allow-host", nil, "Host from which principals listed in --allow-principal will have access ('*' by default).")
	f.StringArrayVar(&o.DenyHosts, "deny-host", nil, "Host from which principals listed in --deny-principal will be denied access ('*' by default).")
	f.StringArrayVar(&o.Operations, "operation", nil, "Operation that is being allowed or denied (repeatable; default All): All, Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite.")
	f.BoolVar(&o.Producer, "producer", false, "Convenience option to add/remove ACLs for producer role. This will generate ACLs that allows WRITE,DESCRIBE and CREATE on topic.")
	f.BoolVar(&o.Consumer, "consumer", false, "Convenience option to add/remove ACLs for consumer role. This will generate ACLs that allows READ,DESCRIBE on topic and READ on group.")
	f.BoolVar(&o.Idempotent, "idempotent", false, "Enable idempotence for the producer. This should be used in combination with the --producer option.")
	f.BoolVar(&o.Force, "force", false, "Assume Yes to all queries and do not prompt.")
	return cmd
}
