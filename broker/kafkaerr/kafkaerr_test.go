package kafkaerr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestCodeAndMessage(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", New(kerr.TopicAlreadyExists, "Topic '%s' already exists.", "t"))
	var ke *kerr.Error
	if !errors.As(err, &ke) || ke != kerr.TopicAlreadyExists {
		t.Fatalf("kerr code not found in %v", err)
	}
	if got := Message(err); got != "Topic 't' already exists." {
		t.Fatalf("Message = %q", got)
	}
	if got := Message(kerr.NotController); got != kerr.NotController.Description {
		t.Fatalf("Message of a bare code = %q", got)
	}
}
