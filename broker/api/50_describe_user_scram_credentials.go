package api

import (
	"context"

	"kafgo/broker/acl"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeUserScramCredentials (key 50, KIP-554).
// Every user with a credential (users null or empty, sorted) or the named
// users, with each credential's mechanism and iterations, read from
// /config/users; never the secret. Errors as Kafka 2.8's ZkAdminManager:
// RESOURCE_NOT_FOUND for a user without credentials or an empty name,
// DUPLICATE_RESOURCE for a name given twice. Needs Describe on the cluster.
func init() {
	regKey(kmsg.NewPtrDescribeUserSCRAMCredentialsRequest(), 0, 0, (*Server).handleDescribeUserScramCredentials)
}

func (s *Server) handleDescribeUserScramCredentials(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeUserSCRAMCredentialsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeUserSCRAMCredentialsResponse)
	if !s.authorizeCluster(c, acl.OpDescribe) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	if s.d.Credentials == nil {
		resp.ErrorCode = kerr.UnknownServerError.Code
		return respond(resp)
	}
	var users []string
	for _, u := range req.Users {
		users = append(users, u.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	descs, err := s.d.Credentials.Describe(ctx, users)
	if err != nil {
		resp.ErrorCode = errCode(err)
		resp.ErrorMessage = kmsg.StringPtr(err.Error())
		return respond(resp)
	}
	for _, d := range descs {
		r := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
		r.User, r.ErrorCode, r.ErrorMessage = d.User, d.Code, d.Message
		for _, info := range d.Infos {
			ci := kmsg.NewDescribeUserSCRAMCredentialsResponseResultCredentialInfo()
			ci.Mechanism, ci.Iterations = info.Mechanism, info.Iterations
			r.CredentialInfos = append(r.CredentialInfos, ci)
		}
		resp.Results = append(resp.Results, r)
	}
	return respond(resp)
}
