// Package clitest is the test harness shared by kafgo's client tools: an
// in-memory kfake cluster on 127.0.0.1, clients for it, golden-file
// comparison with an -update flag, and polling with deadlines.
package clitest
