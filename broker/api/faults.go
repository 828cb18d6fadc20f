package api

// Protocol fault hooks, for end-to-end tests: a broker binary built with
// the kafgo_faults tag (e2e binaries only: `make unit`, testcluster) lets a
// test make this broker delay, drop or fail the requests of one API key,
// optionally only from clients whose id starts with a prefix (a follower's
// fetcher is "broker-<id>-fetcher-<n>"), instead of freezing the whole
// process with SIGSTOP and sleeping. A production build has no table: the
// hook is a call of an empty function in Serve, and no table or handler
// is compiled in (faults_off.go; faults_on.go has them).
//
// The table is driven over the admin endpoint (FaultsPath):
//
//	POST   {"api_key":1,"client_id_prefix":"broker-2-","action":"fail"}  add or replace
//	DELETE                                                                 remove all
//	GET                                                                    list
//
// Actions: "delay" answers delay_ms late; "drop" holds the request
// unanswered (the client waits, as on a frozen broker) until the rule is
// removed or delay_ms passes (default a minute), then closes the
// connection; "fail" closes the connection at once without answering, as a
// broker that went away.

// FaultsPath is the admin endpoint path of the fault table.
const FaultsPath = "/debug/faults"
