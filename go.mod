module github.com/skilledge/skilledge

go 1.26

require (
	github.com/extism/go-pdk v1.1.3
	github.com/tetratelabs/wazero v1.12.0
	github.com/tidwall/gjson v1.18.0
	golang.org/x/sys v0.44.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
)
