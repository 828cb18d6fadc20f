// Package acl is Kafka 2.x's AclAuthorizer (kafka.security.authorizer):
// ACL bindings stored in the metadata store exactly as Kafka stores them in
// ZooKeeper, cached by every broker, kept current by change notifications,
// and evaluated with Kafka's rules.
//
// # Model
//
// A binding is a resource pattern (resource type, name, pattern type
// LITERAL or PREFIXED) and an entry (principal "Type:Name", host,
// operation, ALLOW or DENY). The enums are Kafka's wire codes (kmsg's
// ACL* types); the cluster resource is named "kafka-cluster"; "*" is the
// wildcard resource name and host, "User:*" the wildcard principal.
//
// # Storage (package znode has the paths and the JSON)
//
//	/kafka-acl/<ResourceType>/<name>                    literal patterns
//	/kafka-acl-extended/prefixed/<ResourceType>/<name>  prefixed patterns
//	  {"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}
//	/kafka-acl-changes/acl_changes_<seq>                "Topic:orders" (literal change)
//	/kafka-acl-extended-changes/acl_changes_<seq>       {"version":1,"resourceType":"Topic","name":"o-","patternType":"PREFIXED"}
//
// <ResourceType> and the operation and permission names are PascalCase
// (TransactionalId, IdempotentWrite, Allow); reading also accepts Kafka's
// upper-case enum names. A resource's znode is updated with its version
// (optimistic concurrency, retried on conflict) and deleted when its last
// entry goes; every change writes a notification, on which every broker
// re-reads that one resource. Notifications older than 15 minutes are
// removed, as Kafka's listener does. The embedded store holds the same
// tree through the same meta.Store interface.
//
// # Evaluation (AclAuthorizer.authorize)
//
// Super users (super.users) may do everything. Otherwise the ACLs that
// apply to (type, name) are the literal ones on the name, the literal ones
// on "*", and every prefixed one whose name is a prefix of the name. None:
// allowed only with allow.everyone.if.no.acl.found. A matching DENY (same
// principal or User:*, same operation or ALL, same host or *) refuses;
// else a matching ALLOW grants, where ALLOW of READ, WRITE, DELETE or
// ALTER also grants DESCRIBE, and ALLOW of ALTER_CONFIGS grants
// DESCRIBE_CONFIGS. AuthorizeByResourceType is Kafka's
// authorizeByResourceType: any ALLOW on some resource of the type that no
// DENY dominates.
package acl
