// Package zkshell is `kafgo zookeeper-shell`, Kafka's zookeeper-shell.sh:
// the ZooKeeper command line (ZooKeeperMain of ZooKeeper 3.8, which Kafka
// 3.9 ships, behind Kafka's ZooKeeperMainWithTlsSupportForKafka) over the
// brokers' own ZooKeeper client (broker/meta), so what it shows is what the
// brokers see.
//
//	kafgo zookeeper-shell host:port[/chroot] [--allow-writes] [cmd args...]
//
// With a command it runs that one command and exits; without, it reads
// commands from standard input, one per line, after the prompt
// "[zk: host:port(CONNECTED) N] ". Output is ZooKeeper's, line for line:
// the "Connecting to ..." banner and the connection's WATCHER event on
// standard output, then
//
//	ls [-s] [-w] [-R] path     [a, b] (sorted); -R: every path under path, breadth first
//	get [-s] [-w] path         the data as text ("null" for none)
//	stat [-w] path             cZxid = 0x2, ctime = <Date.toString()>, ... numChildren = 1
//	getAllChildrenNumber path  the number of znodes under path
//	create [-s] [-e] path [data]   "Created <path>" (on standard error, as ZooKeeper prints it)
//	set [-s] [-v version] path data
//	delete [-v version] path
//	deleteall path [-b batch size]
//
// -s adds the stat; -w leaves a watch whose event is printed (interactive
// mode). Errors are ZooKeeper's texts on standard error with its exit
// statuses: "Node does not exist: /x" (1), "Node already exists: /x",
// "Node not empty: /x", "version No is not valid : /x", a command's usage
// line when its arguments are wrong (1), the usage list and
// "Command not found: Command not found foo" for an unknown command (127).
//
// Read-only unless --allow-writes: create, set, delete and deleteall are
// refused, because a stray write to the znodes the controller and brokers
// keep there (/controller, /brokers, /admin) changes the cluster. A chroot
// that does not exist is not created (every path then does not exist), as
// with ZooKeeper's own client. ZooKeeper's other commands (ACLs, quotas,
// watches by path, reconfig, history) are not offered, and TLS to
// ZooKeeper (-zk-tls-config-file) is not supported; both are refused with
// a clear error.
package zkshell
