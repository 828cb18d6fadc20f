package console

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"

	"kafgo/internal/testing/clitest"
)

// TestProduceInterruptedWhileWaitingForInput: an interactive producer sits
// waiting for the next line; Ctrl-C (the context ending) ends it there, as
// it ends Kafka's console producer, with the lines already read
// acknowledged; it must not wait for one more Enter or Ctrl-D.
func TestProduceInterruptedWhileWaitingForInput(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "typed"))
	o := ProducerOptions{Topic: "typed", Prompt: true}
	cl, _, err := NewProducerClient(config(addrs, nil), o)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	stdin, typing := io.Pipe()
	defer typing.Close()
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var out, errOut bytes.Buffer
	type result struct {
		res ProduceResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := Produce(ctx, cl, o, stdin, &out, &errOut)
		done <- result{res, err}
	}()
	if _, err := io.WriteString(typing, "first line\n"); err != nil {
		t.Fatal(err)
	}
	// Once the line is in the topic, the producer waits for the next one.
	adm := kadm.NewClient(clitest.Client(t, addrs))
	clitest.Eventually(t, 20*time.Second, func() (bool, error) {
		ends, err := adm.ListEndOffsets(ctx, "typed")
		if err != nil {
			return false, err
		}
		end, _ := ends.Lookup("typed", 0)
		return end.Offset == 1, nil
	})
	interrupt()
	select {
	case r := <-done:
		if r.err != nil || r.res.Sent != 1 || r.res.Failed != 0 {
			t.Fatalf("interrupted producer: %+v, %v (stderr %q); want the line read sent", r.res, r.err, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the producer did not end on the interrupt while waiting for input")
	}
}
