package adminapi

// QuotasPath is GET /v1/quotas: the answering broker's client quota
// sensors (Kafka's per user / client-id quota metrics).
const QuotasPath = "/v1/quotas"

// ClientQuota is one element of GET /v1/quotas: one quota type's sensor
// for a user and client id. An empty User or ClientID means the quota in
// force covers every value of it (a client-id quota shared by all users,
// a user quota shared by all the user's client ids).
type ClientQuota struct {
	Type     string `json:"type"` // produce, fetch or request
	User     string `json:"user"`
	ClientID string `json:"client_id"`
	// Rate is what the quota measures: bytes/s, or for request the
	// percentage of one request handler thread.
	Rate float64 `json:"rate"`
	// Limit is the quota in force, absent when none applies.
	Limit *float64 `json:"limit,omitempty"`
	// ThrottleTimeMs is the average throttle time recently given.
	ThrottleTimeMs float64 `json:"throttle_time_ms"`
	// ThrottledUntilMs is when the last throttle ends (unix ms, 0 never);
	// Throttled says whether it is still running.
	ThrottledUntilMs int64 `json:"throttled_until_ms"`
	Throttled        bool  `json:"throttled"`
}
