package api

import "github.com/twmb/franz-go/pkg/kmsg"

// registerAll is the table of served APIs and versions: ApiVersions
// advertises exactly this. Inter-broker APIs are served at the versions our
// controller and followers send. Produce goes down to v0 and Fetch to v2
// (with up- and down-conversion of legacy message sets): librdkafka 2.0
// compresses with gzip, snappy or lz4 only for a broker whose Produce range
// includes v0, and uses magic 1 (MsgVer1) only with Fetch v2.
func (s *Server) registerAll() {
	s.register(kmsg.NewPtrProduceRequest(), 0, 10, s.handleProduce)
	s.register(kmsg.NewPtrFetchRequest(), 2, 12, s.handleFetch)
	s.register(kmsg.NewPtrListOffsetsRequest(), 0, 7, s.handleListOffsets)
	s.register(kmsg.NewPtrMetadataRequest(), 0, 12, s.handleMetadata)
	s.register(kmsg.NewPtrLeaderAndISRRequest(), 5, 5, s.handleLeaderAndISR)
	s.register(kmsg.NewPtrStopReplicaRequest(), 3, 3, s.handleStopReplica)
	s.register(kmsg.NewPtrUpdateMetadataRequest(), 7, 7, s.handleUpdateMetadata)
	s.register(kmsg.NewPtrControlledShutdownRequest(), 3, 3, s.handleControlledShutdown)
	s.register(kmsg.NewPtrApiVersionsRequest(), 0, 3, s.handleAPIVersions)
	s.register(kmsg.NewPtrCreateTopicsRequest(), 0, 7, s.handleCreateTopics)
	s.register(kmsg.NewPtrDeleteTopicsRequest(), 0, 6, s.handleDeleteTopics)
	s.register(kmsg.NewPtrDeleteRecordsRequest(), 0, 2, s.handleDeleteRecords)
	s.register(kmsg.NewPtrInitProducerIDRequest(), 0, 4, s.handleInitProducerID)
	s.register(kmsg.NewPtrOffsetForLeaderEpochRequest(), 0, 4, s.handleOffsetForLeaderEpoch)
	s.register(kmsg.NewPtrDescribeConfigsRequest(), 0, 4, s.handleDescribeConfigs)
	s.register(kmsg.NewPtrAlterConfigsRequest(), 0, 2, s.handleAlterConfigs)
	s.register(kmsg.NewPtrDescribeLogDirsRequest(), 0, 4, s.handleDescribeLogDirs)
	s.register(kmsg.NewPtrCreatePartitionsRequest(), 0, 3, s.handleCreatePartitions)
	s.register(kmsg.NewPtrElectLeadersRequest(), 0, 2, s.handleElectLeaders)
	s.register(kmsg.NewPtrIncrementalAlterConfigsRequest(), 0, 1, s.handleIncrementalAlterConfigs)
	s.register(kmsg.NewPtrAlterPartitionAssignmentsRequest(), 0, 0, s.handleAlterPartitionAssignments)
	s.register(kmsg.NewPtrListPartitionReassignmentsRequest(), 0, 0, s.handleListPartitionReassignments)
	s.register(kmsg.NewPtrAlterPartitionRequest(), 1, 1, s.handleAlterPartition)
	s.register(kmsg.NewPtrDescribeClusterRequest(), 0, 1, s.handleDescribeCluster)
	s.register(kmsg.NewPtrWriteTxnMarkersRequest(), 0, 1, s.handleWriteTxnMarkers)
	s.register(kmsg.NewPtrDescribeProducersRequest(), 0, 0, s.handleDescribeProducers)
	s.register(kmsg.NewPtrDescribeACLsRequest(), 0, 2, s.handleDescribeACLs)
	s.register(kmsg.NewPtrCreateACLsRequest(), 0, 2, s.handleCreateACLs)
	s.register(kmsg.NewPtrDeleteACLsRequest(), 0, 2, s.handleDeleteACLs)
	s.register(kmsg.NewPtrDescribeClientQuotasRequest(), 0, 1, s.handleDescribeClientQuotas)
	s.register(kmsg.NewPtrAlterClientQuotasRequest(), 0, 1, s.handleAlterClientQuotas)
	s.register(kmsg.NewPtrSASLHandshakeRequest(), 0, 1, s.handleSaslHandshake)
	s.register(kmsg.NewPtrSASLAuthenticateRequest(), 0, 2, s.handleSaslAuthenticate)
	s.register(kmsg.NewPtrDescribeUserSCRAMCredentialsRequest(), 0, 0, s.handleDescribeUserScramCredentials)
	s.register(kmsg.NewPtrAlterUserSCRAMCredentialsRequest(), 0, 0, s.handleAlterUserScramCredentials)
	s.registerGroupAPIs()
	s.registerTxnAPIs()
}
