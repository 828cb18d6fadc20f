package api

import (
	"context"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/credentials"
)

// AlterUserScramCredentials (key 51, KIP-554).
// Served by the controller, as in Kafka's ZooKeeper mode (clients send it
// there; another broker answers NOT_CONTROLLER for every user). The client
// sends the salted password; the controller derives StoredKey and
// ServerKey, writes /config/users/<user> and notifies every broker through
// /config/changes. Validation and messages follow Kafka 2.8's
// ZkAdminManager (see broker/credentials). Needs Alter on the cluster
// (CLUSTER_AUTHORIZATION_FAILED for every user).
func init() {
	regKey(kmsg.NewPtrAlterUserSCRAMCredentialsRequest(), 0, 0, (*Server).handleAlterUserScramCredentials)
}

func (s *Server) handleAlterUserScramCredentials(c *Call) Reply {
	req := c.Req.(*kmsg.AlterUserSCRAMCredentialsRequest)
	resp := req.ResponseKind().(*kmsg.AlterUserSCRAMCredentialsResponse)
	allowed := s.authorizeCluster(c, acl.OpAlter)
	if !allowed || s.notController() || s.d.Credentials == nil {
		code := kerr.NotController
		switch {
		case !allowed:
			code = kerr.ClusterAuthorizationFailed
		case s.d.Credentials == nil:
			code = kerr.UnknownServerError
		}
		var users []string
		for _, d := range req.Deletions {
			users = append(users, d.Name)
		}
		for _, u := range req.Upsertions {
			users = append(users, u.Name)
		}
		sort.Strings(users)
		for _, u := range slices.Compact(users) {
			r := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
			r.User, r.ErrorCode, r.ErrorMessage = u, code.Code, kmsg.StringPtr(code.Description)
			resp.Results = append(resp.Results, r)
		}
		return respond(resp)
	}
	var dels []credentials.Deletion
	for _, d := range req.Deletions {
		dels = append(dels, credentials.Deletion{User: d.Name, Mechanism: d.Mechanism})
	}
	var ups []credentials.Upsertion
	for _, u := range req.Upsertions {
		ups = append(ups, credentials.Upsertion{User: u.Name, Mechanism: u.Mechanism, Iterations: u.Iterations, Salt: u.Salt, SaltedPassword: u.SaltedPassword})
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	for _, r := range s.d.Credentials.Alter(ctx, dels, ups) {
		out := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
		out.User, out.ErrorCode, out.ErrorMessage = r.User, r.Code, r.Message
		resp.Results = append(resp.Results, out)
	}
	return respond(resp)
}
