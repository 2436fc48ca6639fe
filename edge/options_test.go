package edge

import (
	"reflect"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestParseOptionsDefaults checks that parsed options reach New, whose defaults fill the gaps.
func TestParseOptionsDefaults(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want wire.Options // after New
	}{
		{``, wire.Options{Endpoint: "/mcp", MaxBody: 1 << 20, PageSize: wire.DefaultPageSize, Name: "skilledge", Version: wire.Version}},
		{`{"maxBody":0,"pageSize":0,"endpoint":""}`, wire.Options{Endpoint: "/mcp", MaxBody: 1 << 20, PageSize: wire.DefaultPageSize, Name: "skilledge", Version: wire.Version}},
		{`{"maxBody":5,"pageSize":2,"endpoint":"/e","name":"n","version":"v","instructions":"i","allowHosts":["*"]}`,
			wire.Options{Endpoint: "/e", MaxBody: 5, PageSize: 2, Name: "n", Version: "v", Instructions: "i", AllowHosts: []string{"*"}}},
	} {
		o, err := wire.ParseOptions([]byte(tc.in))
		if err != nil {
			t.Fatalf("wire.ParseOptions(%s): %v", tc.in, err)
		}
		s := exampleServer(t, o)
		got := s.opt
		if tc.want.Instructions == "" {
			if !strings.Contains(got.Instructions, "Agent Skills") {
				t.Errorf("%s: default instructions %q", tc.in, got.Instructions)
			}
			got.Instructions = ""
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("New(ParseOptions(%s)).opt = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}
