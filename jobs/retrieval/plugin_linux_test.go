package retrieval

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPluginDiesWithItsStage: a plugin process is killed by the kernel
// when the stage that started it dies by kill -9, so it does not hold its
// model (and GPU memory) past its shard. The test runs itself as the
// stage, which starts a plugin-like process the way startPlugin does.
func TestPluginDiesWithItsStage(t *testing.T) {
	if os.Getenv("SABER_TEST_PLUGIN_PARENT") == "1" {
		cmd := exec.Command("sleep", "60")
		setProcessGroup(cmd)
		dieWithParent(cmd)
		if err := cmd.Start(); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
		select {} // until killed
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestPluginDiesWithItsStage$")
	parent.Env = append(os.Environ(), "SABER_TEST_PLUGIN_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		parent.Process.Kill()
		t.Fatalf("no plugin pid from the stage: %q, %v", line, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !running(pid) {
			return
		}
	}
	t.Fatalf("plugin pid %d still running 5 s after its stage was killed", pid)
}

// running says whether pid is a live process (a zombie, dead and not yet
// reaped by whoever adopted it, is not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
