// Package acls is kafgo's kafka-acls.sh (Kafka's AclCommand with
// --bootstrap-server): it adds, removes and lists ACL bindings through the
// brokers' CreateAcls, DeleteAcls and DescribeAcls APIs, never touching the
// metadata store itself.
//
// Output is AclCommand's, byte for byte (the header and entry lines end
// in a space, which this comment cannot show):
//
//	Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`:
//	 	(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)
//	<blank line>
//	Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`:
//	 	(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)
//	<blank line>
//
// that is "<header> `<pattern>`: " newline, a space, the entries each
// after a tab and joined by newlines, a space, a newline, and the blank
// line of println. Kafka prints the entries of one resource, and the
// resources of a listing, in hash-set order (which varies from JVM to
// JVM); kafgo prints the entries it adds in command-line order (principal,
// then operation, then host) and listings in the broker's order (resource
// type, pattern type, name descending, entries as stored).
//
// --producer expands to Write, Describe and Create on each topic (Write
// and Describe on each transactional id, IdempotentWrite on the cluster
// with --idempotent); --consumer to Read and Describe on each topic and
// Read on each group. --remove asks before deleting unless --force.
package acls
