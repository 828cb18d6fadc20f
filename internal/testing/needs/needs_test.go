package needs

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The helper process: run as a test binary with NEEDS_HELPER set, it runs
// one test that asks for a tool that does not exist.
func TestHelperMissingTool(t *testing.T) {
	if os.Getenv("NEEDS_HELPER") == "" {
		t.Skip("helper process only")
	}
	Tool(t, "kafgo-no-such-tool", "apt-get install nothing")
	t.Log("after Tool: the test went on")
}

func runHelper(t *testing.T, required string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMissingTool$", "-test.v")
	cmd.Env = append(os.Environ(), "NEEDS_HELPER=1", RequiredEnv+"="+required)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A missing tool skips the test, saying what to install; with
// KAFGO_E2E_REQUIRED=1 it fails it.
func TestMissingToolSkipsOrFails(t *testing.T) {
	out, err := runHelper(t, "")
	if err != nil {
		t.Fatalf("without %s a missing tool failed the test: %v\n%s", RequiredEnv, err, out)
	}
	for _, want := range []string{"--- SKIP: TestHelperMissingTool", "kafgo-no-such-tool is not installed (apt-get install nothing)", "needs: 1 tests skipped", "TestHelperMissingTool: kafgo-no-such-tool"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "the test went on") {
		t.Error("the test went on after its tool was missing")
	}

	out, err = runHelper(t, "1")
	if err == nil {
		t.Fatalf("with %s=1 a missing tool did not fail the test:\n%s", RequiredEnv, out)
	}
	if !strings.Contains(out, "--- FAIL: TestHelperMissingTool") || !strings.Contains(out, "required") {
		t.Errorf("failure output:\n%s", out)
	}
}

func TestMain(m *testing.M) { os.Exit(Main(m)) }
