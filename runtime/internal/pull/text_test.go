package pull

import "testing"

// TestSizeOf: sizes in the unit a person reads.
func TestSizeOf(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 1<<30 + 1<<29: "1536.0 MiB"} {
		if got := sizeOf(n); got != want {
			t.Errorf("sizeOf(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBehind: a pin behind the latest version alone is not behind; any other row is.
func TestBehind(t *testing.T) {
	for _, tt := range []struct {
		rows []Outdated
		want bool
	}{
		{nil, false},
		{[]Outdated{{Name: "a", Pinned: true}}, false},
		{[]Outdated{{Name: "a", Pinned: true}, {Name: "b"}}, true},
	} {
		if got := Behind(tt.rows); got != tt.want {
			t.Errorf("Behind(%+v) = %v", tt.rows, got)
		}
	}
}
