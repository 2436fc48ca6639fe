//go:build e2e

package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// runPeak runs cmd and returns its combined output and its peak resident memory in
// bytes, read from /proc/PID/status (VmHWM) while it runs, once it has exec'd its own
// program. The max RSS the kernel reports of a process os/exec started on Linux counts
// the test binary's memory, which it shared until exec (CLONE_VFORK|CLONE_VM): in a full
// run that was the test binary's 139 MiB, not the program's.
func runPeak(cmd *exec.Cmd) ([]byte, int64, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	bin, _ := filepath.EvalSymlinks(cmd.Path)
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	proc := "/proc/" + strconv.Itoa(cmd.Process.Pid)
	for {
		if exe, err := os.Readlink(proc + "/exe"); err == nil && exe == bin {
			if b, err := os.ReadFile(proc + "/status"); err == nil {
				peak = max(peak, vmHWM(b))
			}
		}
		select {
		case err := <-done:
			return out.Bytes(), peak, err
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// vmHWM is the VmHWM line of a /proc/PID/status, in bytes, or 0.
func vmHWM(status []byte) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
