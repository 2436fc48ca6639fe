package serving

import "testing"

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8787": true, "localhost:1": true, "[::1]:80": true, "127.0.0.2:0": true,
		":8787": false, "0.0.0.0:80": false, "[::]:80": false, "example.com:80": false, "192.168.1.2:80": false, "nonsense": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v", addr, got)
		}
	}
}
