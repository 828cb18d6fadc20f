package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A Kafka node's server.properties starts kafgo as it is (issue 22). Every
// key of Kafka 2.8's KafkaConfig is therefore either a broker key kafgo
// defines (BrokerDefs), or listed here with what kafgo does with it:
// translated into the keys kafgo reads, ignored because ignoring it is
// harmless, or refused because ignoring it would change what the broker
// does. Keys kafgo defines but does not act on are in noEffect. Each is
// reported once at start-up (Broker.Notices); none is dropped silently.

// Notice is one line of the start-up report: a key kafgo accepted but does
// not act on as Kafka would, and what it does instead.
type Notice struct {
	Key    string
	Value  string // "[hidden]" for secrets
	Origin string // server.properties:12, env KAFKA_X, --override, ...
	// Action is "ignored", "translated", "no effect" or "repeated".
	Action string
	Detail string
}

// String is the report line: key=value (origin): action: detail.
func (n Notice) String() string {
	o := ""
	if n.Origin != "" {
		o = " (" + n.Origin + ")"
	}
	return fmt.Sprintf("%s=%q%s: %s: %s", n.Key, n.Value, o, n.Action, n.Detail)
}

// Notices is the start-up report: one entry per key given in the file,
// environment or command line that kafgo ignores, translates or does not
// act on, in key order.
func (b *Broker) Notices() []Notice { return append([]Notice(nil), b.notices...) }

// compatRule says what kafgo does with a Kafka key it does not define.
type compatRule struct {
	// refuse returns why value cannot be honoured; "" means ignoring it
	// is harmless. nil never refuses.
	refuse func(value string) string
	// ignored is what kafgo does instead when the value is ignored.
	ignored   string
	sensitive bool
}

const javaPluginRefusal = "Java plugin classes cannot be loaded, and running without this one would change what the broker does; remove the key or leave it empty"

func refuseNonEmpty(why string) func(string) string {
	return func(v string) string {
		if strings.TrimSpace(v) != "" {
			return why
		}
		return ""
	}
}

func refuseTrue(why string) func(string) string {
	return func(v string) string {
		if strings.EqualFold(strings.TrimSpace(v), "true") {
			return why
		}
		return ""
	}
}

const (
	noLogDirMoves = "kafgo does not move replicas between log dirs of a broker (AlterReplicaLogDirs), so there is nothing for this to tune"
	noKerberos    = "GSSAPI (Kerberos) is not supported; a SASL listener that enables it is refused at start-up"
	noTokens      = "delegation tokens are off: kafgo does not implement them (a delegation.token.master.key is refused)"
	noZKTLS       = "used only with zookeeper.ssl.client.enable=true, which kafgo refuses"
	kraftOnly     = "a KRaft setting; without process.roles kafgo, like Kafka in ZooKeeper mode, does not read it"
	passwordEnc   = "kafgo does not encrypt dynamic password configs in the metadata store; a password set with kafka-configs is kept as Kafka keeps a non-password value"
)

// compatKeys are Kafka 2.8 broker keys (KafkaConfig.configDef) that kafgo
// does not define, except those compatTranslate handles.
var compatKeys = map[string]compatRule{
	"alter.log.dirs.replication.quota.window.num":          {ignored: noLogDirMoves},
	"alter.log.dirs.replication.quota.window.size.seconds": {ignored: noLogDirMoves},
	"num.replica.alter.log.dirs.threads":                   {ignored: noLogDirMoves},
	"client.quota.callback.class":                          {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: Kafka's default quota callback, which kafgo implements"},
	"connection.failed.authentication.delay.ms":            {ignored: "a connection that fails authentication gets its error response and is closed without the extra delay"},
	"controller.quota.window.num":                          {ignored: "controller mutation quotas (controller_mutation_rate, KIP-599) are not enforced, and kafka-configs refuses to set them"},
	"controller.quota.window.size.seconds":                 {ignored: "controller mutation quotas (controller_mutation_rate, KIP-599) are not enforced, and kafka-configs refuses to set them"},
	"control.plane.listener.name":                          {refuse: refuseNonEmpty("a separate controller listener (KIP-291) is not supported: controller requests use inter.broker.listener.name; remove the key and that listener"), ignored: "empty: controller requests use the inter-broker listener, as Kafka's default"},
	"delegation.token.master.key":                          {refuse: refuseNonEmpty("delegation tokens are not implemented: clients that authenticate with tokens could not connect"), ignored: noTokens, sensitive: true},
	"delegation.token.secret.key":                          {refuse: refuseNonEmpty("delegation tokens are not implemented: clients that authenticate with tokens could not connect"), ignored: noTokens, sensitive: true},
	"delegation.token.expiry.check.interval.ms":            {ignored: noTokens},
	"delegation.token.expiry.time.ms":                      {ignored: noTokens},
	"delegation.token.max.lifetime.ms":                     {ignored: noTokens},
	"kafka.metrics.reporters":                              {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: no Yammer reporter; metrics are served on admin.listener /metrics"},
	"kafka.metrics.polling.interval.secs":                  {ignored: "Yammer metric reporters are not loaded; metrics are served on admin.listener /metrics when scraped"},
	"password.encoder.secret":                              {ignored: passwordEnc, sensitive: true},
	"password.encoder.old.secret":                          {ignored: passwordEnc, sensitive: true},
	"password.encoder.cipher.algorithm":                    {ignored: passwordEnc},
	"password.encoder.iterations":                          {ignored: passwordEnc},
	"password.encoder.key.length":                          {ignored: passwordEnc},
	"password.encoder.keyfactory.algorithm":                {ignored: passwordEnc},
	"sasl.client.callback.handler.class":                   {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: kafgo's own SASL client"},
	"sasl.login.callback.handler.class":                    {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: kafgo's own SASL login"},
	"sasl.login.class":                                     {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: kafgo's own SASL login"},
	"sasl.server.callback.handler.class":                   {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: kafgo's own PLAIN and SCRAM servers"},
	"sasl.kerberos.kinit.cmd":                              {ignored: noKerberos},
	"sasl.kerberos.min.time.before.relogin":                {ignored: noKerberos},
	"sasl.kerberos.principal.to.local.rules":               {ignored: noKerberos},
	"sasl.kerberos.ticket.renew.jitter":                    {ignored: noKerberos},
	"sasl.kerberos.ticket.renew.window.factor":             {ignored: noKerberos},
	"sasl.login.refresh.buffer.seconds":                    {ignored: "only for OAUTHBEARER and GSSAPI logins, which kafgo does not support"},
	"sasl.login.refresh.min.period.seconds":                {ignored: "only for OAUTHBEARER and GSSAPI logins, which kafgo does not support"},
	"sasl.login.refresh.window.factor":                     {ignored: "only for OAUTHBEARER and GSSAPI logins, which kafgo does not support"},
	"sasl.login.refresh.window.jitter":                     {ignored: "only for OAUTHBEARER and GSSAPI logins, which kafgo does not support"},
	"security.providers":                                   {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: Go's crypto"},
	"socket.connection.setup.timeout.ms":                   {ignored: "inter-broker connection attempts use kafgo's own dial timeouts"},
	"socket.connection.setup.timeout.max.ms":               {ignored: "inter-broker connection attempts use kafgo's own dial timeouts"},
	"ssl.engine.factory.class":                             {refuse: refuseNonEmpty(javaPluginRefusal), ignored: "empty: Go's crypto/tls"},
	"ssl.provider":                                         {ignored: "TLS is Go's crypto/tls; a Java security provider name has no meaning to it"},
	"zookeeper.clientCnxnSocket":                           {ignored: "kafgo's ZooKeeper client is not Java's; the socket implementation is not selectable"},
	"zookeeper.ssl.client.enable":                          {refuse: refuseTrue("TLS to ZooKeeper is not supported; use a plaintext ZooKeeper port reachable only by the brokers"), ignored: "false: plaintext ZooKeeper, as Kafka's default"},
	"zookeeper.ssl.cipher.suites":                          {ignored: noZKTLS},
	"zookeeper.ssl.crl.enable":                             {ignored: noZKTLS},
	"zookeeper.ssl.enabled.protocols":                      {ignored: noZKTLS},
	"zookeeper.ssl.endpoint.identification.algorithm":      {ignored: noZKTLS},
	"zookeeper.ssl.keystore.location":                      {ignored: noZKTLS},
	"zookeeper.ssl.keystore.password":                      {ignored: noZKTLS, sensitive: true},
	"zookeeper.ssl.keystore.type":                          {ignored: noZKTLS},
	"zookeeper.ssl.ocsp.enable":                            {ignored: noZKTLS},
	"zookeeper.ssl.protocol":                               {ignored: noZKTLS},
	"zookeeper.ssl.truststore.location":                    {ignored: noZKTLS},
	"zookeeper.ssl.truststore.password":                    {ignored: noZKTLS, sensitive: true},
	"zookeeper.ssl.truststore.type":                        {ignored: noZKTLS},
	// KRaft (Kafka 2.8 early access); process.roles, node.id,
	// controller.quorum.voters and controller.listener.names are handled by
	// translateKRaft.
	"controller.quorum.election.timeout.ms":     {ignored: kraftOnly},
	"controller.quorum.fetch.timeout.ms":        {ignored: kraftOnly},
	"controller.quorum.election.backoff.max.ms": {ignored: kraftOnly},
	"controller.quorum.append.linger.ms":        {ignored: kraftOnly},
	"controller.quorum.request.timeout.ms":      {ignored: kraftOnly},
	"controller.quorum.retry.backoff.ms":        {ignored: kraftOnly},
	"metadata.log.dir":                          {ignored: kraftOnly},
	"broker.heartbeat.interval.ms":              {ignored: kraftOnly},
	"broker.session.timeout.ms":                 {ignored: kraftOnly},
	"initial.broker.registration.timeout.ms":    {ignored: kraftOnly},
	"sasl.mechanism.controller.protocol":        {ignored: kraftOnly},
}

// translatedKeys are the Kafka keys compatTranslate turns into keys kafgo
// reads (or refuses): Kafka 2.x's pre-listeners host and port keys, and
// the KRaft keys of a single combined node.
var translatedKeys = map[string]bool{
	"host.name": true, "port": true, "advertised.host.name": true, "advertised.port": true,
	"process.roles": true, "node.id": true, "controller.quorum.voters": true, "controller.listener.names": true,
}

// isCompatKey reports a Kafka key kafgo accepts without defining it.
func isCompatKey(key string) bool {
	_, ok := compatKeys[key]
	return ok || translatedKeys[key]
}

// noEffect lists keys kafgo defines and validates but does not act on,
// with what it does instead; setting one is reported at start-up.
var noEffect = map[string]string{
	"inter.broker.protocol.version":                    "kafgo brokers talk to every broker with the API versions each advertises, whatever this says",
	"log.message.format.version":                       "kafgo always writes RecordBatch v2 (message format 2.x)",
	"background.threads":                               "background work runs on goroutines; there is no thread pool to size",
	"num.network.threads":                              "each connection is served by its own goroutines; there is no network thread pool",
	"num.io.threads":                                   "requests are handled on goroutines, several per connection in order; there is no handler pool to size",
	"num.recovery.threads.per.data.dir":                "log recovery at start-up runs as many partitions at once as there are CPUs",
	"queued.max.requests":                              "requests are not queued for a handler pool; each connection reads its next request once the previous ones are answered",
	"socket.listen.backlog.size":                       "Go listens with the operating system's maximum backlog",
	"fetch.purgatory.purge.interval.requests":          "delayed requests are removed as soon as they complete; there is no purge interval",
	"producer.purgatory.purge.interval.requests":       "delayed requests are removed as soon as they complete; there is no purge interval",
	"delete.records.purgatory.purge.interval.requests": "delayed requests are removed as soon as they complete; there is no purge interval",
	"zookeeper.sync.time.ms":                           "not used by ZooKeeper clients at all (Kafka ignores it too)",
	"zookeeper.max.in.flight.requests":                 "kafgo's ZooKeeper client pipelines requests without this bound",
	"controller.socket.timeout.ms":                     "controller requests to brokers time out after request.timeout.ms",
	"replica.socket.receive.buffer.bytes":              "follower fetch connections keep the operating system's receive buffer",
	"max.connection.creation.rate":                     "new connections are not rate limited; max.connections and max.connections.per.ip apply",
	"log.flush.start.offset.checkpoint.interval.ms":    "log-start-offset-checkpoint is written with the recovery point checkpoint (log.flush.offset.checkpoint.interval.ms)",
	"log.cleaner.io.max.bytes.per.second":              "the log cleaner's I/O is not throttled",
	"ssl.keymanager.algorithm":                         "TLS is Go's crypto/tls; Java key manager names have no meaning to it",
	"ssl.trustmanager.algorithm":                       "TLS is Go's crypto/tls; Java trust manager names have no meaning to it",
	"ssl.secure.random.implementation":                 "Go's crypto/rand is used",
	"sasl.kerberos.service.name":                       noKerberos,
}

// compatTranslate applies the rules above to raw static values: keys kafgo
// does not define are removed from values (translated into the keys it
// reads, ignored, or refused), and keys in noEffect that are set are
// reported. values is changed in place; origins gains the translated keys.
func compatTranslate(values map[string]string, origins map[string]origin) ([]Notice, []*Error) {
	var notes []Notice
	var errs []*Error
	note := func(key, action, detail string) {
		v := values[key]
		if r, ok := compatKeys[key]; (ok && r.sensitive) || isSensitive(key) {
			v = hidden
		}
		notes = append(notes, Notice{Key: key, Value: v, Origin: origins[key].String(), Action: action, Detail: detail})
	}
	refuse := func(key, why string) {
		e := &Error{Key: key, Value: values[key], Err: fmt.Errorf("%w: %s", ErrUnsupported, why)}
		if r, ok := compatKeys[key]; ok && r.sensitive {
			e.Value = hidden
		}
		errs = append(errs, origins[key].apply(e))
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, ok := compatKeys[k]
		if !ok {
			if why, set := noEffect[k]; set {
				note(k, "no effect", why)
			}
			continue
		}
		if r.refuse != nil {
			if why := r.refuse(values[k]); why != "" {
				refuse(k, why)
				delete(values, k)
				continue
			}
		}
		note(k, "ignored", r.ignored)
		delete(values, k)
	}
	n, e := translateListenersV2(values, origins, note)
	notes, errs = append(notes, n...), append(errs, e...)
	n, e = translateKRaft(values, origins, note, refuse)
	notes, errs = append(notes, n...), append(errs, e...)
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Key < notes[j].Key })
	return notes, errs
}

func isSensitive(key string) bool {
	d, ok := lookupDef(key)
	return ok && d.Sensitive
}

// translateListenersV2 applies Kafka 2.x's host.name, port,
// advertised.host.name and advertised.port (deprecated in 2.x, removed in
// 3.0), as KafkaConfig.getListeners and getAdvertisedListeners did: without
// listeners, the broker listens on PLAINTEXT://host.name:port (port 9092
// unless set); without advertised.listeners, it advertises
// PLAINTEXT://advertised.host.name:advertised.port, each defaulting to
// host.name and port, once either advertised key is set.
func translateListenersV2(values map[string]string, origins map[string]origin, note func(key, action, detail string)) ([]Notice, []*Error) {
	host, hasHost := values["host.name"]
	port, hasPort := values["port"]
	advHost, hasAdvHost := values["advertised.host.name"]
	advPort, hasAdvPort := values["advertised.port"]
	if !hasHost && !hasPort && !hasAdvHost && !hasAdvPort {
		return nil, nil
	}
	var errs []*Error
	for _, k := range []string{"port", "advertised.port"} {
		if v, ok := values[k]; ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 0 || n > 65535 {
				errs = append(errs, origins[k].apply(&Error{Key: k, Value: v, Err: fmt.Errorf("%w: not a port number", ErrInvalidValue)}))
			}
		}
	}
	if len(errs) > 0 {
		for _, k := range []string{"host.name", "port", "advertised.host.name", "advertised.port"} {
			delete(values, k)
		}
		return nil, errs
	}
	if !hasPort {
		port = "9092"
	}
	port, host = strings.TrimSpace(port), strings.TrimSpace(host)
	if _, set := values["listeners"]; set {
		for _, k := range []string{"host.name", "port"} {
			if _, ok := values[k]; ok {
				note(k, "ignored", "listeners is set, which wins over host.name and port, as in Kafka 2.x")
			}
		}
	} else if hasHost || hasPort {
		l := "PLAINTEXT://" + joinHostPort(host, port)
		values["listeners"] = l
		origins["listeners"] = origins[firstSet(values, "host.name", "port")]
		for _, k := range []string{"host.name", "port"} {
			if _, ok := values[k]; ok {
				note(k, "translated", "Kafka 2.x's pre-listeners setting: listeners="+l)
			}
		}
	}
	if hasAdvHost || hasAdvPort {
		if _, set := values["advertised.listeners"]; set {
			for _, k := range []string{"advertised.host.name", "advertised.port"} {
				if _, ok := values[k]; ok {
					note(k, "ignored", "advertised.listeners is set, which wins, as in Kafka 2.x")
				}
			}
		} else {
			if !hasAdvHost {
				advHost = host
			}
			if !hasAdvPort {
				advPort = port
			}
			l := "PLAINTEXT://" + joinHostPort(strings.TrimSpace(advHost), strings.TrimSpace(advPort))
			values["advertised.listeners"] = l
			origins["advertised.listeners"] = origins[firstSet(values, "advertised.host.name", "advertised.port")]
			for _, k := range []string{"advertised.host.name", "advertised.port"} {
				if _, ok := values[k]; ok {
					note(k, "translated", "Kafka 2.x's pre-listeners setting: advertised.listeners="+l)
				}
			}
		}
	}
	for _, k := range []string{"host.name", "port", "advertised.host.name", "advertised.port"} {
		delete(values, k)
	}
	return nil, nil
}

func firstSet(values map[string]string, keys ...string) string {
	for _, k := range keys {
		if _, ok := values[k]; ok {
			return k
		}
	}
	return keys[0]
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + port
}

// translateKRaft runs a KRaft node of Kafka 2.8 that is its own one-voter
// quorum (process.roles=broker,controller, controller.quorum.voters naming
// only node.id: what config/kraft/server.properties ships) as a kafgo broker
// on its embedded metadata store, which plays the same part: node.id
// becomes broker.id and the controller listeners are not opened (kafgo
// serves no KRaft controller requests; in 2.8 no client uses them). Any
// other KRaft node (a broker that needs a separate quorum, several voters)
// is refused: kafgo cannot join a KRaft quorum.
func translateKRaft(values map[string]string, origins map[string]origin, note func(key, action, detail string), refuse func(key, why string)) ([]Notice, []*Error) {
	kraft := []string{"process.roles", "node.id", "controller.quorum.voters", "controller.listener.names"}
	defer func() {
		for _, k := range kraft {
			delete(values, k)
		}
	}()
	roles, hasRoles := values["process.roles"]
	if !hasRoles || len(splitList(roles)) == 0 {
		for _, k := range kraft[1:] {
			if _, ok := values[k]; ok {
				note(k, "ignored", kraftOnly)
			}
		}
		return nil, nil
	}
	fail := func(why string) ([]Notice, []*Error) {
		refuse("process.roles", why)
		return nil, nil
	}
	rs := map[string]bool{}
	for _, r := range splitList(roles) {
		rs[strings.TrimSpace(r)] = true
	}
	if !rs["broker"] || !rs["controller"] || len(rs) != 2 {
		return fail("KRaft mode is not supported: kafgo cannot join a KRaft controller quorum. It runs a combined node (process.roles=broker,controller) that is its quorum's only voter, on its embedded metadata store; otherwise use zookeeper.connect")
	}
	if _, zk := values["zookeeper.connect"]; zk {
		return fail("process.roles (KRaft) and zookeeper.connect are both set; remove process.roles to run on ZooKeeper")
	}
	nodeID, ok := values["node.id"]
	id, err := strconv.ParseInt(strings.TrimSpace(nodeID), 10, 32)
	if !ok || err != nil || id < 0 {
		return fail("a KRaft node needs node.id, a non-negative integer")
	}
	voters := splitList(values["controller.quorum.voters"])
	if len(voters) != 1 || !strings.HasPrefix(strings.TrimSpace(voters[0]), strconv.FormatInt(id, 10)+"@") {
		return fail(fmt.Sprintf("controller.quorum.voters=%q: kafgo runs a KRaft node only when it is its quorum's one voter (%d@host:port); a multi-node quorum cannot be joined", values["controller.quorum.voters"], id))
	}
	if b, set := values["broker.id"]; set && strings.TrimSpace(b) != strconv.FormatInt(id, 10) {
		return fail(fmt.Sprintf("broker.id=%s and node.id=%d differ", b, id))
	}
	values["broker.id"] = strconv.FormatInt(id, 10)
	origins["broker.id"] = origins["node.id"]
	note("process.roles", "translated", "a combined KRaft node that is its own only voter runs as one kafgo broker on the embedded metadata store (under the first log dir), which plays the quorum's part")
	note("node.id", "translated", "broker.id="+values["broker.id"])
	note("controller.quorum.voters", "ignored", "the one voter is this node; its quorum is the embedded metadata store")
	ctl := map[string]bool{}
	for _, n := range splitList(values["controller.listener.names"]) {
		ctl[strings.ToUpper(strings.TrimSpace(n))] = true
	}
	if _, ok := values["controller.listener.names"]; ok {
		note("controller.listener.names", "translated", "these listeners are not opened: kafgo serves no KRaft controller requests, which no Kafka 2.8 client sends")
	}
	for _, key := range []string{"listeners", "advertised.listeners"} {
		v, set := values[key]
		if !set {
			continue
		}
		var keep []string
		for _, item := range splitList(v) {
			name, _, _ := strings.Cut(item, "://")
			if !ctl[strings.ToUpper(strings.TrimSpace(name))] {
				keep = append(keep, strings.TrimSpace(item))
			}
		}
		if len(keep) == len(splitList(v)) {
			continue
		}
		if len(keep) == 0 {
			delete(values, key)
			continue
		}
		values[key] = strings.Join(keep, ",")
	}
	return nil, nil
}
