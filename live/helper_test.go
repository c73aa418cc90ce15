package live

import (
	"os"
	"os/exec"
	"testing"
)

// startHelper runs this test binary as a bind process (see helperBind).
func startHelper(t *testing.T, e *testEnv, result, journal string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+result, helperKubeconfig+"="+e.s.Kubeconfig, helperJournal+"="+journal)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}
